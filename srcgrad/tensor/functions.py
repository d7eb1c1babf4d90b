"""Module-level math mirroring the Tensor methods: ``sg.sin(t)``, ``sg.cat``, ``sg.where``.

Each function accepts what its method accepts (numbers and arrays become tensors, as in
PyTorch) and records the same rule; ``cat``/``stack``/``where`` record the table's
``concatenate``/``stack``/``where`` rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..rules import rule_named
from . import multi_methods as _multi
from . import ops as _ops
from .reduce_methods import matmul as _matmul
from .tensor import Tensor


def as_tensor(value: Any, dtype: Any = None) -> Tensor:
    """``value`` as a Tensor (itself if it already is one of that dtype)."""
    from .factories import tensor

    if isinstance(value, Tensor):
        return value if dtype is None else value.to(dtype)
    return tensor(value, dtype=dtype)


def _method(name: str) -> Any:
    def fn(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 (PyTorch's name)
        return getattr(as_tensor(input), name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``sg.{name}(t, ...)`` is ``t.{name}(...)``."
    return fn


_MIRRORED = (
    "sin", "cos", "tan", "exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "square",
    "neg", "exp2", "expm1", "log2", "log10", "log1p", "asin", "acos", "atan", "sinh",
    "cosh", "asinh", "acosh", "atanh", "reciprocal", "sign", "floor", "ceil", "trunc",
    "round", "isnan", "isinf", "isfinite", "sum", "mean", "prod", "std", "var", "max", "min",
    "amax", "amin", "argmax", "argmin", "all", "any", "cumsum", "norm", "softmax",
    "log_softmax", "clamp", "clip", "pow", "add", "sub", "mul", "div", "maximum", "minimum",
    "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute", "t", "flip",
    "clone", "detach", "mm", "mv", "dot", "outer", "atan2", "eq", "ne", "lt", "le", "gt",
    "ge", "unbind", "split", "chunk", "logical_not",
    "sort",  # multi
)
_MIRRORED += (  # elem
    "sinc", "deg2rad", "rad2deg", "erf", "erfc", "lgamma", "digamma", "logaddexp2", "fmax",
    "fmin", "nan_to_num", "cumprod", "nansum", "nanmean", "median",
)
_FUNCTIONS = {name: _method(name) for name in _MIRRORED}
globals().update(_FUNCTIONS)


def matmul(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input @ other`` with PyTorch's rules for 1-d and batched operands."""
    return _matmul(as_tensor(input), other)


def cat(tensors: Sequence[Any], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension (``CatBackward0``)."""
    items = [as_tensor(t) for t in tensors]
    if not items:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    return _ops.record(rule_named("concatenate"), (items,), {"axis": dim})


concat = concatenate = cat


def stack(tensors: Sequence[Any], dim: int = 0) -> Tensor:
    """Join tensors along a new dimension (``StackBackward0``)."""
    items = [as_tensor(t) for t in tensors]
    if not items:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {t.shape for t in items}
    if len(shapes) > 1:
        raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                           f"{[list(s) for s in [items[0].shape, items[1].shape]]}")
    return _ops.record(rule_named("stack"), (items,), {"axis": dim})


def where(condition: Any, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """``input`` where ``condition`` holds, else ``other`` (``WhereBackward0``)."""
    if input is None and other is None:
        cond = as_tensor(condition)._data
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in np.nonzero(cond))
    return _ops.record(rule_named("where"), (as_tensor(condition), input, other))


def polygamma(n: int, input: Any) -> Tensor:  # noqa: A002 (PyTorch's order and name)
    """``sg.polygamma(n, t)`` is ``t.polygamma(n)``."""
    return as_tensor(input).polygamma(n)


meshgrid = _multi.meshgrid


def numel(input: Any) -> int:  # noqa: A002
    """The number of elements of ``input``."""
    return as_tensor(input).numel()


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is an ``sg.Tensor``."""
    return isinstance(obj, Tensor)


__all__ = ["as_tensor", "cat", "concat", "concatenate", "is_tensor", "matmul", "meshgrid", "numel",
           "stack", "where", *_MIRRORED, "polygamma"]

from .complex_methods import conj, imag, real  # noqa: E402  (real tensors' complex spellings)

__all__ += ["conj", "imag", "real"]
