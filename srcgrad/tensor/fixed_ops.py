"""One-input operations with fixed static parameters (``x.sum()``, ``x.mean(1)``): the
general recording path (:func:`.ops.record`) with everything its call form fixes decided
once.

``record`` serves any rule and any call: it completes the parameters with the rule's
defaults, looks the call form's ``Spec`` up under a freshly built key, builds an
environment dict, binds the implementation's arguments from it and checks dtypes and views
per call. For a reduction of a float tensor over fixed axes all of that depends only on
the rule, the parameters and the input's ndim, so :func:`fixed_op` makes a function that
does it once per ndim and per call only runs ``impl`` and records the node through the
same plan (``attach``). Anything it does not fix (a non-float or non-Tensor input, a rule
that may return a view, a piecewise-constant or derivative-less rule) goes to ``record``
unchanged, so both paths give the same tensors, nodes and errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.fp_errors import IGNORE as _IGNORE
from ..autograd.fp_errors import quiet as _quiet
from ..autograd.fp_errors import restore as _restore
from ..autograd.grad_mode import STATE
from ..rules import Rule
from ..rules.registry import NONDIFF
from . import ops as _ops
from .nodes import attach, view_requires, zero_grad
from .spec import spec_for, with_defaults

_ndarray = np.ndarray
_asarray = np.asarray
_new = object.__new__
_ONE = (True,)


def fixed_op(rule: Rule, params: dict[str, Any]) -> Callable[[Any], Any]:
    """``op(tensor)``: ``record(rule, (tensor,), params)`` with the call form fixed."""
    params = with_defaults(rule, params)
    name = rule.inputs[0]
    plain = (len(rule.inputs) == 1 and rule.variadic is None and not rule.view
             and rule.kind != NONDIFF and not zero_grad(rule) and name in rule.vjp)
    # per ndim: (spec, positional args before and after the input, keyword args, params)
    forms: dict[int, tuple[Any, ...]] = {}

    def general(x: Any) -> Any:
        return _ops.record(rule, (x,), params)

    if not plain:
        return general

    def form(ndim: int) -> tuple[Any, ...]:
        full = params if rule.resolve is None else rule.resolve(params, {name: ndim})
        spec = spec_for(rule, (True,), (ndim,), full, None)
        args, kwargs = rule.call_form.call_args({**full, name: _MARK})
        at = [k for k, a in enumerate(args) if a is _MARK]
        if len(at) != 1 or any(v is _MARK for v in kwargs.values()):
            return ()  # (the input is not one positional argument: the general path)
        k = at[0]
        found = forms[ndim] = (spec, tuple(args[:k]), tuple(args[k + 1:]), kwargs, full)
        return found

    def op(self: Any) -> Any:
        if type(self) is not _ops._Tensor and not isinstance(self, _ops._Tensor):
            return general(self)
        x = self._data
        dt = x.dtype
        if dt.kind != "f":  # integer and bool sums promote: record's dtype rules
            return general(self)
        fixed = forms.get(x.ndim) or form(x.ndim)
        if not fixed:
            return general(self)
        spec, before, after, kwargs, full = fixed
        token = _quiet(_IGNORE)
        try:
            out = spec.impl(*before, x, *after, **kwargs)
        except ValueError as e:  # NumPy's complaint, raised as the runtime's error
            raise RuntimeError(f"{rule.name}(): {e}") from None
        finally:
            _restore(token)
        if type(out) is not _ndarray:
            out = _asarray(out)
        if out.dtype is not dt and spec.float_result and out.dtype.kind == "f" \
                and out.dtype != dt:
            out = out.astype(dt)  # (record's promotion: a float input keeps its dtype)
        result = _new(_ops._Tensor)
        result._data = out
        result._vc = [0]
        if (self._rg or self._base is not None and view_requires(self)) and STATE.enabled:
            attach(spec, (self,), (x,), result, _ONE, full)
        return result

    return op


class _Mark:
    """Where the input goes among the implementation's arguments."""


_MARK = _Mark()
