"""Array attributes and methods on symbolic values: ``x.T``, ``x.shape``, ``x.sum(axis=0)``.

Each method is lowered as the NumPy function it stands for (``x.sum(0)`` ->
``np.sum(x, 0)``, ``x.reshape(2, 3)`` -> ``np.reshape(x, (2, 3))``), so it reaches the same
rule. Attributes that only describe the array (``shape``, ``ndim``, ``size``, ``dtype``)
are constants where the abstract type knows them, else non-differentiable ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import types as T
from ..symbolic import Sym, record_rule
from .context import BoundMethod

_LIST_MUTATORS = ("append", "extend", "insert", "pop", "remove", "sort", "clear", "reverse")


def _struct(name: str) -> Any:
    from .calls import rule  # calls imports this module
    return rule(name)


def attribute(lw: Any, obj: Any, name: str, node: Any) -> Any:
    if not isinstance(obj, Sym):
        raise lw.err(node, f"attribute `{name}` of a value known only at run time.")
    t = obj.value.type or T.ANY
    if name == "T":
        return _np(lw, "transpose", [obj], {}, node)
    if name == "shape":
        out = record_rule(_struct("shape"), [obj], {})
        out.value.type = T.STATIC
        return out
    if name == "ndim":
        if t.known_ndim is not None:
            return t.known_ndim
        out = record_rule(_struct("ndim"), [obj], {})
        out.value.type = T.INT
        return out
    if name == "size":
        out = record_rule(_struct("size"), [obj], {})
        out.value.type = T.INT
        return out
    if name == "dtype":
        if t.dtype is not None:
            return np.dtype(t.dtype)
        out = record_rule(_struct("dtype"), [obj], {})
        out.value.type = T.STATIC
        return out
    if name in METHODS or name in _LIST_MUTATORS:
        return BoundMethod(obj, name)
    raise lw.err(node, f"the array attribute `.{name}` is not supported.",
                 "Use the NumPy function instead (np.<name>(x, ...)).")


def _np(lw: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    from .calls import call
    return call(lw, getattr(np, name), args, kwargs, node)


def _shape_args(args: list[Any]) -> Any:
    return args[0] if len(args) == 1 else tuple(args)


def _reshape(lw: Any, x: Any, args: list[Any], kw: dict[str, Any], node: Any) -> Any:
    shape = _shape_args(args) if args else kw.pop("shape")
    return _np(lw, "reshape", [x, shape], kw, node)


def _transpose(lw: Any, x: Any, args: list[Any], kw: dict[str, Any], node: Any) -> Any:
    axes = (_shape_args(args) if args else None) if "axes" not in kw else kw.pop("axes")
    return _np(lw, "transpose", [x] if axes is None else [x, axes], kw, node)


def _flatten(lw: Any, x: Any, args: list[Any], kw: dict[str, Any], node: Any) -> Any:
    return _np(lw, "reshape", [_np(lw, "copy", [x], {}, node), -1], {}, node)


def _astype(lw: Any, x: Any, args: list[Any], kw: dict[str, Any], node: Any) -> Any:
    dtype = args[0] if args else kw.pop("dtype")
    return record_rule(_struct("astype"), [x], {"dtype": dtype})


def _item(lw: Any, x: Any, args: list[Any], kw: dict[str, Any], node: Any) -> Any:
    from .calls import call
    target = x[tuple(args)] if args else x
    return call(lw, float, [_np(lw, "reshape", [target, ()], {}, node)], {}, node)


def _same_name(name: str) -> Any:
    return lambda lw, x, args, kw, node: _np(lw, name, [x, *args], kw, node)


METHODS: dict[str, Any] = {
    name: _same_name(name)
    for name in ("sum", "mean", "max", "min", "prod", "std", "var", "cumsum", "cumprod",
                 "argmax", "argmin", "any", "all", "dot", "ravel", "copy", "squeeze",
                 "clip", "repeat", "round", "diagonal", "trace", "swapaxes")
}
METHODS.update(reshape=_reshape, transpose=_transpose, flatten=_flatten, astype=_astype,
               item=_item)


def call_method(lw: Any, method: BoundMethod, args: list[Any], kwargs: dict[str, Any],
                node: Any) -> Any:
    if method.name in _LIST_MUTATORS:
        raise lw.err(node, f"`.{method.name}(...)` would mutate a list or array the caller "
                     "passed in (derived functions never modify their arguments).",
                     "Build a new local list instead: items = list(arg) + [...].")
    return METHODS[method.name](lw, method.obj, list(args), dict(kwargs), node)
