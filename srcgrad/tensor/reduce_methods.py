"""Reductions and products with PyTorch's names: ``sum``, ``mean``, ``max``, ``matmul``...

PyTorch's spellings map onto the table's NumPy rules here: ``dim`` -> ``axis``,
``keepdim`` -> ``keepdims``, ``std``/``var`` with ``correction=1`` by default -> ``ddof``;
``t.max(dim)`` returns ``(values, indices)``; matmul raises PyTorch's shape errors.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..rules import rule_named
from . import dtypes
from . import ops as _ops
from .fixed_ops import fixed_op, fixed_pair

_record = _ops.record

MaxResult = namedtuple("MaxResult", ["values", "indices"])  # torch.return_types.max


def _axis(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, list) else dim


class _NoDim:
    """The default of ``dim``: not given at all (``x.sum()``), unlike ``dim=None``."""

    def __repr__(self) -> str:
        return "None"


NO_DIM: Any = _NoDim()


def _reduce(self: Any, rule: str, dim: Any, keepdim: bool, **extra: Any) -> Any:
    """Record reduction ``rule``. PyTorch reduces every dimension for ``dim=None``, ``()``
    or ``[]`` given explicitly and names that form ``SumBackward1`` (the dim overload),
    as it does ``keepdim=True`` without a dim; only ``x.sum()`` is ``SumBackward0``. The
    explicit forms become the tuple of all axes, which the table's namer tells apart."""
    if dim is NO_DIM:
        dim = tuple(range(self._data.ndim)) if keepdim and self._data.ndim else None
    elif dim is None or (isinstance(dim, (tuple, list)) and not dim):
        dim = tuple(range(self._data.ndim))
    axis = _axis(dim)
    found = rule_named(rule)  # (looked up per call: a rule may be registered again)
    key = (id(found), axis, keepdim, *extra.items())
    try:
        op = _FIXED.get(key)
    except TypeError:  # an unhashable argument (the general path reports it)
        return _record(found, (self,), {"axis": axis, "keepdims": keepdim, **extra})
    if op is None:
        if len(_FIXED) > 1024:  # ever-new axes: start over
            _FIXED.clear()
        op = _FIXED[key] = fixed_op(found, {"axis": axis, "keepdims": keepdim, **extra})
    return op(self)


# the reduction of each (rule, axis, keepdims, extra params), its call form decided once;
# keyed by the rule's id, which its op (holding the rule) keeps from being reused
_FIXED: dict[tuple[Any, ...], Any] = {}


def _whole(self: Any, rule: str) -> Any:
    """``x.sum()``, ``x.mean()``: :func:`_reduce` with ``dim`` and ``keepdim`` not given
    (every loss ends in one), its op found under the rule's name alone."""
    found = rule_named(rule)  # (looked up per call: a rule may be registered again)
    op = _WHOLE.get(rule)
    if op is None or op[0] is not found:
        op = _WHOLE[rule] = (found, fixed_op(found, {"axis": None, "keepdims": False}))
    return op[1](self)


_WHOLE: dict[str, tuple[Any, Any]] = {}  # rule name: (its rule, the op made for it)


def _check_float(self: Any, op: str) -> None:
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"{op}(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: "
                           f"{dtypes.TITLE_NAMES[self.dtype.name]}")


def _matmul_check(a: np.ndarray, b: np.ndarray) -> None:
    """PyTorch's messages for matmul shapes that do not fit."""
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    inner_a = a.shape[-1]
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if inner_a == inner_b:
        return
    if a.ndim == 1 and b.ndim == 1:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if a.ndim == 2 and b.ndim == 1:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({b.shape[0]})")
    rows = int(np.prod(a.shape[:-1])) if b.ndim <= 2 else a.shape[-2]
    ra = f"{rows}x{a.shape[-1]}"
    rb = f"{b.shape[-2]}x{b.shape[-1]}" if b.ndim > 1 else f"{b.shape[0]}x1"
    raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({ra} and {rb})")


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` with PyTorch's node names (Mm/Mv/Dot) and shape errors."""
    tensor = _ops._tm.Tensor
    if not isinstance(b, tensor):
        b = tensor._wrap(np.asarray(b, dtype=a._data.dtype) if not isinstance(b, np.ndarray)
                         else b)
    if not isinstance(a, tensor):
        a = tensor._wrap(np.asarray(a))
    _matmul_check(a._data, b._data)
    found = rule_named("matmul")  # (looked up per call: a rule may be registered again)
    op = _PAIRS.get(id(found))
    if op is None or op[0] is not found:
        op = _PAIRS[id(found)] = (found, fixed_pair(found))
    return op[1](a, b)


# the two-input products' ops, their call forms decided once per pair of ndims (keyed by
# the rule's id, the rule kept beside its op so the id is never reused)
_PAIRS: dict[int, tuple[Any, Any]] = {}


class ReduceMethods:
    """Reductions and products of the Tensor."""

    def __matmul__(self, other: Any) -> Any:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return matmul(other, self)

    def sum(self, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Any:
        if dim is NO_DIM and dtype is None and not keepdim:
            return _whole(self, "sum")
        x = self if dtype is None else self.to(dtype)
        return _reduce(x, "sum", dim, keepdim)

    def mean(self, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Any:
        x = self if dtype is None else self.to(dtype)
        _check_float(x, "mean")
        if dim is NO_DIM and not keepdim:
            return _whole(x, "mean")
        return _reduce(x, "mean", dim, keepdim)

    def prod(self, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Any:
        x = self if dtype is None else self.to(dtype)
        return _reduce(x, "prod", dim, keepdim)

    def var(self, dim: Any = NO_DIM, unbiased: bool | None = None, keepdim: bool = False,
            *, correction: Any = None) -> Any:
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        _check_float(self, "var")
        return _reduce(self, "var", dim, keepdim, ddof=ddof)

    def std(self, dim: Any = NO_DIM, unbiased: bool | None = None, keepdim: bool = False,
            *, correction: Any = None) -> Any:
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        _check_float(self, "std")
        return _reduce(self, "std", dim, keepdim, ddof=ddof)

    def _extreme(self, rule: str, arg: Any, dim: Any, keepdim: bool) -> Any:
        tensor = _ops._tm.Tensor
        if isinstance(dim, tensor) or (dim is not None and not isinstance(dim, int)):
            raise TypeError(f"{rule}(): dim must be an int, got {type(dim).__name__}")
        if self._data.size == 0:
            raise RuntimeError(f"{rule}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        values = _reduce(self, rule, NO_DIM if dim is None else dim, keepdim)
        if dim is None:
            return values
        index = arg(self._data, axis=dim, keepdims=keepdim)
        return MaxResult(values, tensor._wrap(np.asarray(index, dtype=np.int64)))

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, _ops._tm.Tensor):
            return self.maximum(dim)
        return self._extreme("max", np.argmax, dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, _ops._tm.Tensor):
            return self.minimum(dim)
        return self._extreme("min", np.argmin, dim, keepdim)

    def amax(self, dim: Any = NO_DIM, keepdim: bool = False) -> Any:
        return _reduce(self, "amax", dim, keepdim)

    def amin(self, dim: Any = NO_DIM, keepdim: bool = False) -> Any:
        return _reduce(self, "amin", dim, keepdim)

    def argmax(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("argmax"), (self,), {"axis": dim, "keepdims": keepdim})

    def argmin(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("argmin"), (self,), {"axis": dim, "keepdims": keepdim})

    def all(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("all"), (self,), {"axis": dim, "keepdims": keepdim})

    def any(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("any"), (self,), {"axis": dim, "keepdims": keepdim})

    def cumsum(self, dim: int) -> Any:
        return _record(rule_named("cumsum"), (self,), {"axis": dim})

    def norm(self, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
        ord_ = None if isinstance(p, str) and p == "fro" or p == 2 else p
        several = isinstance(dim, (tuple, list)) and len(dim) > 1
        if several and ord_ is not None and not isinstance(ord_, str):
            # PyTorch means a vector p-norm over several dims; NumPy's pair of axes means a
            # matrix norm, another function
            raise RuntimeError(f"norm(p={p!r}) over several dims is not supported by srcgrad; "
                               "flatten them first (reshape) for the vector norm")
        if dim is None and self._data.ndim > 1:
            return _record(rule_named("norm"), (self.reshape(-1),),
                           {"ord": ord_, "axis": None, "keepdims": False})
        return _record(rule_named("norm"), (self,), {"ord": ord_, "axis": _axis(dim),
                                                     "keepdims": keepdim})

    # --- products ------------------------------------------------------------------------
    def matmul(self, other: Any) -> Any:
        return matmul(self, other)

    def mm(self, other: Any) -> Any:
        if self._data.ndim != 2 or np.ndim(getattr(other, "_data", other)) != 2:
            raise RuntimeError("self must be a matrix")
        return matmul(self, other)

    def mv(self, vec: Any) -> Any:
        return matmul(self, vec)

    def dot(self, other: Any) -> Any:
        if self._data.ndim != 1 or np.ndim(getattr(other, "_data", other)) != 1:
            raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and "
                               f"{np.ndim(getattr(other, '_data', other))}D tensors")
        return matmul(self, other)

    def outer(self, other: Any) -> Any:
        return _record(rule_named("outer"), (self, other))
