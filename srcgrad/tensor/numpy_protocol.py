"""NumPy functions applied to Tensors: ``np.sin(t)``, ``np.sum(t, axis=0)``, ``a @ t``.

A Tensor overrides NumPy's dispatch (``__array_ufunc__`` for ufuncs, ``__array_function__``
for the rest, NEP 13/18): the call is looked up in the rule table (``rule_for``), bound to
the rule's names by its call form, and recorded like any Tensor method, keeping NumPy's
signature and semantics with PyTorch's type promotion. This is also how ``create_graph``
works: the rules' own bodies, run on Tensors, record the backward pass. A NumPy function
without a rule computes on the values when nothing requires grad, and otherwise raises a
``TypeError`` naming the function and pointing to ``sg.defvjp``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules import NONDIFF, rule_for, rule_named
from ..rules.multi import Item, multi_for
from ..rules.registry import ELEMENTWISE
from . import ops as _ops
from .nodes import zero_grad

_BINARY_SPECS: dict[str, dict[Any, Any]] = {}


def _unwrap(value: Any) -> Any:
    tensor = _ops._tm.Tensor
    if isinstance(value, tensor):
        return value._data
    if isinstance(value, (list, tuple)) and any(isinstance(v, tensor) for v in value):
        return type(value)(_unwrap(v) for v in value)
    return value


def _rewrap(value: Any) -> Any:
    tensor = _ops._tm.Tensor
    if isinstance(value, np.ndarray):
        return tensor._wrap(value)
    if isinstance(value, np.generic):
        return tensor._wrap(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_rewrap(v) for v in value)
    if isinstance(value, list):
        return [_rewrap(v) for v in value]
    return value


def _any_requires(values: Any) -> bool:
    tensor = _ops._tm.Tensor
    for v in values:
        if isinstance(v, tensor) and _ops.requires(v):
            return True
        if isinstance(v, (list, tuple)) and _any_requires(v):
            return True
    return False


def _no_rule(name: str, args: Any, call: Any) -> Any:
    if _any_requires(args):
        raise TypeError(f"numpy.{name} has no derivative rule, so it cannot be applied to a "
                        "Tensor that requires grad; register one with sg.defvjp, or apply it "
                        "to t.detach()")
    return _rewrap(call())


def record_items(items: list[Item], result: Any) -> Any:
    """The result of a tuple-returning function (rules/multi.py): each item recorded as its
    own rule, gathered by ``result`` (list, tuple, a named tuple)."""
    values = []
    for item in items:
        inputs, params = item.arguments()
        values.append(_ops.record(rule_named(item.rule), inputs, params, item.form))
    return result(values)


class NumpyProtocol:
    """NumPy interoperability of the Tensor."""

    __array_priority__ = 1000.0
    __srcgrad_primitives__ = True  # helper primitives record a node too (rules/dispatch.py)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """The values, sharing memory unless a copy or another dtype is asked for."""
        data = self._data
        if dtype is not None and np.dtype(dtype) != data.dtype:
            if copy is False:
                raise ValueError(f"cannot view a {data.dtype} tensor as {np.dtype(dtype)} "
                                 "without a copy (copy=False was requested)")
            return data.astype(dtype)
        return data.copy() if copy else data

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            raise TypeError(f"numpy.{ufunc.__name__}(..., out=...) cannot write into a "
                            "srcgrad Tensor; use the in-place Tensor methods (add_, mul_...)")
        if method != "__call__" or kwargs:
            return _no_rule(f"{ufunc.__name__}.{method}", inputs,
                            lambda: getattr(ufunc, method)(*_unwrap(inputs), **kwargs))
        rule = rule_for(ufunc)
        if rule is None:
            return _no_rule(ufunc.__name__, inputs, lambda: ufunc(*_unwrap(inputs)))
        if rule.kind == NONDIFF:
            return _ops.record(rule, inputs)
        if rule.kind == ELEMENTWISE and len(inputs) == 2:
            specs = _BINARY_SPECS.get(rule.name)
            if specs is None or specs["rule"] is not rule:
                specs = _BINARY_SPECS[rule.name] = {"rule": rule}
            return _ops.binary(specs, *inputs)
        return _ops.record(rule, inputs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        multi = multi_for(func)
        if multi is not None:  # np.split(t, 3): a tuple (list) of Tensors, one node each
            return record_items(multi.expand(args, kwargs, np.ndim), multi.result)
        rule = rule_for(func)
        if rule is None:
            return _no_rule(getattr(func, "__name__", str(func)), (*args, *kwargs.values()),
                            lambda: func(*_unwrap(args), **{k: _unwrap(v)
                                                            for k, v in kwargs.items()}))
        env = rule.bind(args, kwargs)
        if (rule.kind == NONDIFF or not rule.vjp) and not zero_grad(rule):
            if not _any_requires(env.values()) or rule.kind == NONDIFF:
                plain = {k: _unwrap(v) for k, v in env.items()}
                return _rewrap(rule.apply(plain))
        inputs = tuple(env[n] for n in rule.inputs)
        params = {p: _static(rule.name, p, env[p]) for p in rule.params}
        return _ops.record(rule, inputs, params)


def _static(func: str, name: str, value: Any) -> Any:
    """A static parameter's value: a Tensor there (``np.take(t, index_tensor)``) is read as
    its values, unless it requires grad, which would silently get none."""
    if _any_requires((value,)):
        raise RuntimeError(
            f"numpy.{func}: its argument `{name}` requires grad, but srcgrad differentiates "
            f"{func} only in its array arguments; pass `{name}` detached (t.detach()) or "
            "join it into the array first (np.concatenate)")
    return _unwrap(value)
