"""Shape methods with PyTorch's names: views (share storage), copies, casts, indexing.

``view``, ``reshape`` (when possible), ``flatten``, ``squeeze``, ``unsqueeze``,
``transpose``, ``permute``, ``t``/``T``, ``expand`` and basic indexing return views:
tensors sharing the storage and version counter of their base. They record the table's
``reshape`` / ``squeeze`` / ``expand_dims`` / ``transpose`` / ``broadcast_to`` rules under
PyTorch's node names. ``clone`` and the casts (``float``, ``double``, ``to``) are recorded
copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules import rule_named
from . import dtypes
from . import multi_methods as _multi
from . import ops as _ops
from .indexing import getitem, setitem

_record = _ops.record


def _sizes(args: tuple[Any, ...]) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` both mean the shape ``(2, 3)``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _dim(dim: int, ndim: int) -> int:
    if not -ndim <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {dim})")
    return dim % max(ndim, 1)


def _reshape(self: Any, shape: tuple[int, ...], must_view: bool) -> Any:
    data = self._data
    try:
        reshaped = np.reshape(data, shape)
    except ValueError:
        shown = ", ".join(str(s) for s in shape)
        raise RuntimeError(f"shape '[{shown}]' is invalid for input of size "
                           f"{data.size}") from None
    if must_view and data.size and not np.may_share_memory(reshaped, data):
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.")
    return _record(rule_named("reshape"), (self,), {"shape": reshaped.shape})


class ShapeMethods:
    """Views, copies, casts and subscripts of the Tensor."""

    def view(self, *shape: Any) -> Any:
        if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
            return self.to(shape[0])  # t.view(dtype)
        return _reshape(self, _sizes(shape), must_view=True)

    def reshape(self, *shape: Any) -> Any:
        return _reshape(self, _sizes(shape), must_view=False)

    def view_as(self, other: Any) -> Any:
        return self.view(other.shape)

    def reshape_as(self, other: Any) -> Any:
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Any:
        shape = self._data.shape
        if not shape:
            return self.reshape(1)
        start, end = _dim(start_dim, len(shape)), _dim(end_dim, len(shape))
        if start >= end:
            return self  # PyTorch returns the tensor itself (no new node)
        merged = int(np.prod(shape[start:end + 1]))
        return self.reshape(*shape[:start], merged, *shape[end + 1:])

    def ravel(self) -> Any:
        return self.reshape(-1)

    def squeeze(self, dim: Any = None) -> Any:
        if dim is None:
            return _record(rule_named("squeeze"), (self,), {"axis": None})
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        ndim = self._data.ndim
        axes = tuple(_dim(d, ndim) for d in dims if ndim and self._data.shape[_dim(d, ndim)]
                     == 1)
        if not axes:
            return _record(rule_named("squeeze"), (self,), {"axis": ()})
        return _record(rule_named("squeeze"), (self,),
                       {"axis": axes if isinstance(dim, (tuple, list)) else axes[0]})

    def unsqueeze(self, dim: int) -> Any:
        return _record(rule_named("expand_dims"), (self,),
                       {"axis": _dim(dim, self._data.ndim + 1)})

    def permute(self, *dims: Any) -> Any:
        axes = tuple(_dim(d, self._data.ndim) for d in _sizes(dims))
        if sorted(axes) != list(range(self._data.ndim)):
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                               f"does not match the length of the desired ordering of "
                               f"dimensions i.e. input.dim() = {self._data.ndim} is not equal "
                               f"to len(dims) = {len(axes)}")
        return _record(rule_named("transpose"), (self,), {"axes": axes})

    def transpose(self, dim0: int, dim1: int) -> Any:
        ndim = self._data.ndim
        axes = list(range(ndim))
        a, b = _dim(dim0, ndim), _dim(dim1, ndim)
        if ndim:
            axes[a], axes[b] = axes[b], axes[a]
        return _record(rule_named("transpose"), (self,), {"axes": tuple(axes)},
                       form="transpose")

    swapaxes = swapdims = transpose

    def t(self) -> Any:
        if self._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self._data.ndim}D")
        return _record(rule_named("transpose"), (self,), {"axes": None}, form="t")

    @property
    def T(self) -> Any:  # noqa: N802 (PyTorch's name)
        return _record(rule_named("transpose"), (self,), {"axes": None})

    @property
    def mT(self) -> Any:  # noqa: N802
        return self.transpose(-2, -1)

    def expand(self, *sizes: Any) -> Any:
        shape = _sizes(sizes)
        lead = len(shape) - self._data.ndim
        if lead < 0:
            raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be "
                               f"greater or equal to the number of dimensions in the tensor "
                               f"({self._data.ndim})")
        full = tuple(self._data.shape[i - lead] if n == -1 else n for i, n in enumerate(shape))
        try:
            np.broadcast_shapes(self._data.shape, full)
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor must match the existing size "
                               f"at non-singleton dimensions. Target sizes: {list(shape)}. "
                               f"Tensor sizes: {list(self._data.shape)}") from None
        return _record(rule_named("broadcast_to"), (self,), {"shape": full})

    def expand_as(self, other: Any) -> Any:
        return self.expand(other.shape)

    def contiguous(self) -> Any:
        return self

    def repeat(self, *sizes: Any) -> Any:
        return _record(rule_named("tile"), (self,), {"reps": _sizes(sizes)})

    def flip(self, dims: Any) -> Any:
        axes = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
        out = _record(rule_named("flip"), (self,), {"axis": axes})
        out._data = np.ascontiguousarray(out._data)  # PyTorch's flip copies
        out._base = None
        return out

    def unbind(self, dim: int = 0) -> tuple[Any, ...]:
        return _multi.unbind(self, dim)

    def split(self, split_size: Any, dim: int = 0) -> tuple[Any, ...]:
        return _multi.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Any, ...]:
        return _multi.chunk(self, chunks, dim)

    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
        return _multi.sort(self, dim, descending, stable)

    # --- copies and casts --------------------------------------------------------------
    def clone(self) -> Any:
        return _record(rule_named("copy"), (self,))

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """``t.to(dtype)``; devices other than ``"cpu"`` are not available."""
        dtype = kwargs.pop("dtype", None)
        for a in args:
            if isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda", "mps"):
                if a.split(":")[0] != "cpu":
                    raise RuntimeError(f"srcgrad runs on the CPU only; cannot move to {a!r}")
            elif isinstance(a, _ops._tm.Tensor):
                dtype = a.dtype
            else:
                dtype = a
        kwargs.pop("device", None)
        kwargs.pop("copy", None)
        if kwargs:
            raise TypeError(f"to() got unexpected arguments {sorted(kwargs)}")
        if dtype is None:
            return self
        np_dtype = dtypes.to_numpy(dtype)
        if np_dtype == self._data.dtype:
            return self  # PyTorch returns the tensor itself when nothing changes
        if self.requires_grad and np_dtype.kind != "f":
            out = _record(rule_named("astype"), (self.detach(),), {"dtype": np_dtype})
            return out
        return _record(rule_named("astype"), (self,), {"dtype": np_dtype})

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return f"srcgrad.{dtypes.LEGACY_NAMES[self.dtype.name]}"
        return self.to(dtype)

    def type_as(self, other: Any) -> Any:
        return self.to(other.dtype)

    def float(self) -> Any:
        return self.to(dtypes.float32)

    def double(self) -> Any:
        return self.to(dtypes.float64)

    def half(self) -> Any:
        return self.to(dtypes.float16)

    def long(self) -> Any:
        return self.to(dtypes.int64)

    def int(self) -> Any:
        return self.to(dtypes.int32)

    def bool(self) -> Any:
        return self.to(dtypes.bool_)

    def cpu(self) -> Any:
        return self

    # --- subscripts ----------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        return getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        setitem(self, index, value)
