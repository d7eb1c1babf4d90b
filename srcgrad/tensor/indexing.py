"""``t[index]`` and ``t[index] = v`` with PyTorch's semantics and node names.

A subscript is taken apart as PyTorch does: from left to right, an int selects
(``SelectBackward0``, one dimension fewer), a slice slices (``SliceBackward0``; a full
``:`` is skipped unless it is all there is), ``None`` inserts a dimension
(``UnsqueezeBackward0``), ``...`` skips the dimensions the rest does not name. Each step
is a view of the storage. Integer and boolean tensors, lists and arrays make the whole
subscript an advanced one: one ``IndexBackward0`` node whose backward scatter-adds, so
repeated indices accumulate. Writes go through :mod:`.inplace`: a basic subscript writes
into a view (``CopySlices``), an advanced one is ``index_put`` (``IndexPutBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules import rule_named
from . import ops as _ops
from .inplace import apply_inplace


def _normalize(index: Any) -> tuple[tuple[Any, ...], bool]:
    """The subscript as a tuple with Tensors turned into arrays; is it advanced?"""
    tensor = _ops._tm.Tensor
    parts = index if isinstance(index, tuple) else (index,)
    out = []
    advanced = False
    for p in parts:
        if isinstance(p, tensor):
            p = p._data
            if p.ndim == 0 and p.dtype.kind in "iu":
                p = int(p)
        if isinstance(p, (list, np.ndarray)):
            arr = np.asarray(p)
            if arr.dtype.kind not in "iub" and arr.size:
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
            p = arr.astype(np.int64) if arr.dtype.kind in "iu" or arr.size == 0 else arr
            advanced = True
        elif isinstance(p, (bool, np.bool_)):
            p = np.asarray(p)
            advanced = True
        elif isinstance(p, np.integer):
            p = int(p)
        elif not (p is None or p is Ellipsis or isinstance(p, (int, slice))):
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long "
                             f"or byte Variables are valid indices (got "
                             f"{type(p).__name__})")
        out.append(p)
    return tuple(out), advanced


def _consumed(p: Any) -> int:
    if p is None or p is Ellipsis:
        return 0
    if isinstance(p, np.ndarray) and p.dtype == np.bool_:
        return max(p.ndim, 1) if p.ndim else 0
    return 1


def _check_count(parts: tuple[Any, ...], ndim: int) -> None:
    used = sum(_consumed(p) for p in parts)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")


def _step(x: Any, rule: str, index: Any) -> Any:
    return _ops.record(rule_named(rule), (x,), {"index": index})


def getitem(t: Any, index: Any) -> Any:
    """``t[index]``."""
    parts, advanced = _normalize(index)
    ndim = t._data.ndim
    _check_count(parts, ndim)
    if advanced:
        try:
            return _ops.record(rule_named("getitem"), (t,), {"index": parts})
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
    all_full = all(p is Ellipsis or p == slice(None) for p in parts)
    if all_full:
        return _step(t, "slice", (slice(None),)) if ndim else _alias(t)
    ellipsis_width = ndim - sum(_consumed(p) for p in parts)
    result, dim = t, 0
    for p in parts:
        if p is Ellipsis:
            dim += ellipsis_width
        elif p is None:
            result = _ops.record(rule_named("expand_dims"), (result,), {"axis": dim})
            dim += 1
        elif isinstance(p, int):
            size = result._data.shape[dim]
            if not -size <= p < size:
                raise IndexError(f"index {p} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            result = _step(result, "select", (slice(None),) * dim + (p % size,))
        else:
            if p.step is not None and p.step <= 0:
                raise ValueError("step must be greater than zero")
            if p != slice(None):
                result = _step(result, "slice", (slice(None),) * dim + (p,))
            dim += 1
    return result


def _alias(t: Any) -> Any:
    """``t[...]`` on a 0-d tensor: a view of all of it."""
    return _ops.record(rule_named("reshape"), (t,), {"shape": t._data.shape})


def setitem(t: Any, index: Any, value: Any) -> None:
    """``t[index] = value``: a recorded write (CopySlices / IndexPutBackward0)."""
    parts, advanced = _normalize(index)
    _check_count(parts, t._data.ndim)
    if advanced:
        apply_inplace(t, rule_named("index_put"), (t, value), {"index": parts})
        return
    view = getitem(t, index)  # locates the region; CopySlices then replaces t's history
    if view._base is None:  # a 0-d tensor indexed by ``...``: the whole tensor
        apply_inplace(t, rule_named("copy_into"), (t, value))
        return
    apply_inplace(view, rule_named("copy_into"), (view, value))
