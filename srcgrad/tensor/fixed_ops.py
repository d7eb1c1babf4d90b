"""Operations with fixed static parameters (``x.sum()``, ``x.mean(1)``, ``a @ b``): the
general recording path (:func:`.ops.record`) with everything its call form fixes decided
once (:func:`fixed_op` for one input, :func:`fixed_pair` for two).

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

from ..autograd.grad_mode import ALL_THREADS, STATE
from ..rules import Rule
from ..rules.registry import NONDIFF
from . import ops as _ops
from .nodes import view_requires, zero_grad
from .spec import spec_for, with_defaults

_ndarray = np.ndarray
_ONE = (True,)


def fixed_op(rule: Rule, params: dict[str, Any]) -> Callable[[Any], Any]:
    """``op(tensor)``: ``record(rule, (tensor,), params)`` with the call form fixed."""
    params = with_defaults(rule, params)
    name = rule.inputs[0]
    plain = (len(rule.inputs) == 1 and rule.variadic is None and not rule.view
             and rule.kind != NONDIFF and not zero_grad(rule) and name in rule.vjp)
    # per ndim: (spec, positional args before and after the input, keyword args, params)
    forms: dict[int, tuple[Any, ...]] = {}
    direct = getattr(rule.impl, "__srcgrad_impl__", rule.impl)
    # NumPy's own function (np.mean, np.sum): on a float ndarray only NumPy's code runs,
    # so it may run in the quiet context (ops.computed_numpy), as a ufunc's reduce does
    own = _numpy_own(direct)

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
        before, after = tuple(args[:k]), tuple(args[k + 1:])
        found = forms[ndim] = (spec, before, after, kwargs, full,
                               _reduce_of(direct, before, after, kwargs))
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
        spec, before, after, kwargs, full, on_array = fixed
        # (a dispatching primitive's own function for an ndarray: see ops.unary_op)
        if type(x) is not _ndarray:
            out = _ops.computed(rule, spec.impl, *before, x, *after, **kwargs)
        elif on_array is direct and not own:
            out = _ops.computed(rule, direct, *before, x, *after, **kwargs)
        else:  # a ufunc's reduce or NumPy's own function: NumPy's code alone
            out = _ops.computed_numpy(rule, on_array, *before, x, *after, **kwargs)
        if out.dtype is not dt and spec.float_result and out.dtype.kind == "f" \
                and out.dtype != dt:
            out = out.astype(dt)  # (record's promotion: a float input keeps its dtype)
        result = _ops._Tensor._wrap(out)  # (a call is cheap beside a reduction)
        if (self._rg or self._base is not None and view_requires(self)) and (
                ALL_THREADS.grad or STATE.enabled):
            plan = spec.plans.get(_ONE) or spec.plan(_ONE)  # (nodes.attach, written out)
            plan.build((self,), (self,), (x,), result, full)
        return result

    return op


def fixed_pair(rule: Rule, params: dict[str, Any] | None = None) -> Callable[[Any, Any], Any]:
    """``op(a, b)``: ``record(rule, (a, b), params)`` with the call form fixed, for a
    two-input rule that is not elementwise (``matmul``: PyTorch's node name, the
    implementation's arguments and what to save depend on the two ndims only). Two float
    tensors of one dtype take it; anything else (a number, an ndarray, mixed dtypes)
    goes to ``record`` unchanged."""
    params = with_defaults(rule, params or {})
    first, second = rule.inputs[0] if rule.inputs else "", rule.inputs[-1] if rule.inputs else ""
    plain = (len(rule.inputs) == 2 and rule.variadic is None and not rule.view
             and rule.kind != NONDIFF and not zero_grad(rule) and first in rule.vjp
             and second in rule.vjp and rule.resolve is None)
    # per (ndim of a, ndim of b): (spec, the impl's positional arguments with the inputs'
    # places, keyword args, {needs grad: plan} filled on use)
    forms: dict[tuple[int, int], tuple[Any, ...]] = {}
    own = _numpy_own(rule.impl)  # (then in the quiet context, as in fixed_op)

    def general(a: Any, b: Any) -> Any:
        return _ops.record(rule, (a, b), params)

    if not plain:
        return general

    def form(ndims: tuple[int, int]) -> tuple[Any, ...]:
        spec = spec_for(rule, (True, True), ndims, params, None)
        args, kwargs = rule.call_form.call_args({**params, first: _MARK, second: _MARK2})
        if kwargs or [k for k, v in enumerate(args) if v is _MARK or v is _MARK2] != [0, 1] \
                or args[0] is not _MARK or len(args) != 2:
            found: tuple[Any, ...] = ()  # (not ``impl(a, b)``: the general path)
        else:
            found = (spec,)
        forms[ndims] = found
        return found

    def op(a: Any, b: Any) -> Any:
        tensor = _ops._Tensor
        if not ((type(a) is tensor or isinstance(a, tensor))
                and (type(b) is tensor or isinstance(b, tensor))):
            return general(a, b)
        x, y = a._data, b._data
        dt = x.dtype
        if dt is not y.dtype or dt.kind != "f":  # promotion: record's dtype rules
            return general(a, b)
        ndims = (x.ndim, y.ndim)
        fixed = forms.get(ndims)
        if fixed is None:
            fixed = form(ndims)
        if not fixed:
            return general(a, b)
        spec = fixed[0]
        if own and type(x) is _ndarray and type(y) is _ndarray:  # (matmul: a ufunc)
            out = _ops.computed_numpy(rule, spec.impl, x, y)
        else:
            out = _ops.computed(rule, spec.impl, x, y)
        if out.dtype is not dt and (spec.float_result or spec.elementwise) \
                and out.dtype.kind == "f" and out.dtype != dt:
            out = out.astype(dt)  # (record's promotion to the inputs' one float dtype)
        result = tensor._wrap(out)
        ra = a._rg or a._base is not None and view_requires(a)
        rb = b._rg or b._base is not None and view_requires(b)
        if (ra or rb) and (ALL_THREADS.grad or STATE.enabled):
            req = (bool(ra), bool(rb))
            plan = spec.plans.get(req) or spec.plan(req)
            plan.build((a, b), (a, b), (x, y), result, params)
        return result

    return op


def _numpy_own(fn: Any) -> bool:
    """Whether ``fn`` is NumPy's own (a ufunc, or a function of NumPy's modules): called
    on float ndarrays it runs no code but NumPy's (no user function that would see the
    quiet context, :mod:`..autograd.fp_errors`)."""
    if isinstance(fn, np.ufunc):
        return True
    module = getattr(fn, "__module__", None) or ""
    return type(fn).__name__ in ("function", "_ArrayFunctionDispatcher") and (
        module == "numpy" or module.startswith("numpy."))


# NumPy's sum and prod are Python functions (a dispatcher, then ``_wrapreduction``: ~1 us
# on small arrays, more than the reduction) that call their ufunc's ``reduce`` with the
# same positional (axis, dtype, out) and keyword arguments when given an ndarray
_UFUNC_REDUCE: dict[Any, Any] = {np.sum: np.add.reduce, np.prod: np.multiply.reduce}


_add_reduce = np.add.reduce
_true_divide = np.true_divide
_intp = np.intp
_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))


def _float_mean(x: np.ndarray, axis: Any = None, *, keepdims: bool = False) -> Any:
    """``np.mean(x, axis, keepdims=keepdims)`` for an ndarray, the same values bit for bit:
    NumPy's own steps (``numpy/_core/_methods._mean``: the sum by ``add.reduce``, divided
    by the count as an ``intp``, so a float32 mean is divided in float64 and rounded back)
    without its dispatcher and Python wrappers (~2 us on small arrays, twice the sum).
    Anything else NumPy does differently (float16 and other dtypes, an empty reduction,
    which warns) goes to ``np.mean`` itself."""
    if x.dtype not in _F32_F64:
        return np.mean(x, axis, keepdims=keepdims)
    shape = x.shape
    if axis is None:
        count = x.size
    else:
        count = 1
        ndim = len(shape)
        for ax in (axis if type(axis) is tuple else (axis,)):
            if not -ndim <= ax < ndim:  # (NumPy's AxisError, from np.mean itself)
                return np.mean(x, axis, keepdims=keepdims)
            count *= shape[ax]
    if count == 0:  # ("Mean of empty slice": NumPy's warning and nan)
        return np.mean(x, axis, keepdims=keepdims)
    total = _add_reduce(x, axis, None, None, keepdims)
    if type(total) is np.ndarray:
        return _true_divide(total, _intp(count), out=total, casting="unsafe", subok=False)
    return total.dtype.type(total / _intp(count))


def _reduce_of(fn: Any, before: tuple[Any, ...], after: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
    """What to call on an ndarray for ``fn(*before, x, *after, **kwargs)``: the ufunc's
    ``reduce`` for NumPy's sum and prod when the call names its axis (``reduce``'s
    default axis is 0, theirs None) and passes no ``np._NoValue``, :func:`_float_mean`
    for NumPy's mean called as ``mean(x, axis, keepdims=...)``, else ``fn``."""
    if fn is np.mean:
        plain = (not before and len(after) <= 1 and set(kwargs) <= {"keepdims"}
                 and not any(v is np._NoValue for v in (*after, *kwargs.values())))
        return _float_mean if plain else fn
    reduce = _UFUNC_REDUCE.get(fn)
    if reduce is None or before or not (after or "axis" in kwargs) or \
            any(v is np._NoValue for v in (*after, *kwargs.values())):
        return fn
    return reduce


class _Mark:
    """Where the input goes among the implementation's arguments."""


_MARK = _Mark()
_MARK2 = _Mark()
