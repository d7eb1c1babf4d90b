"""Indexed reads and writes for foreign arrays (Dask, CuPy, ...), in calls that dispatch.

The helper primitives that read or write at an index (``getitem``, ``scatter_add``,
``setitem``, ``scatter_written``, ...) are written for ndarrays with in-place writes and
``np.add.at``. Neither exists for every array library: Dask refuses ``np.add.at`` ("out
parameter") and runs ``np.zeros`` eagerly on NumPy, and an item assignment into an ndarray
converts the foreign values. For a foreign array (``dispatch.foreign``) those helpers call
the functions here instead. Each turns the index, which is static NumPy data, into
*positions* with NumPy at call time (``np.arange(n).reshape(shape)[index]``) and then
moves the foreign values with gathers only: ``np.reshape``, ``np.take`` with a NumPy index
array, ``np.where`` against a NumPy mask and ``+``. Every one of those dispatches to the
array's own library, so a Dask result stays lazy and a CuPy one stays on the device.

A scatter is the gather that undoes it: each target position reads the element written
there (``source``), masked where nothing is written. Repeated positions are split into
layers (the k-th write to each position), each layer a gather, and the layers summed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

Shape = tuple[int, ...]


def positions(shape: Shape, index: Any) -> np.ndarray:
    """Flat positions in an array of ``shape`` that ``x[index]`` reads, shaped like it."""
    return np.arange(math.prod(shape), dtype=np.intp).reshape(shape)[index]


def gather(x: Any, index: Any) -> Any:
    """``x[index]`` for a foreign ``x`` and any NumPy index (Dask indexes with one integer
    array at a time; a flat gather serves several, and boolean masks, alike)."""
    pos = positions(np.shape(x), index)
    return np.reshape(np.take(np.reshape(x, (-1,)), np.reshape(pos, (-1,))), pos.shape)


def _placed(flat: Any, targets: np.ndarray, items: np.ndarray, size: int) -> Any:
    """A flat array of ``size``: ``flat[items[j]]`` at ``targets[j]``, zero elsewhere (the
    targets are distinct)."""
    source = np.zeros(size, dtype=np.intp)
    source[targets] = items
    hit = np.zeros(size, dtype=bool)
    hit[targets] = True
    return np.where(hit, np.take(flat, source), 0)


def scatter(x: Any, shape: Shape, index: Any, accumulate: bool) -> Any:
    """Zeros of ``shape`` with ``x`` (broadcast to ``x[index]``'s shape) placed at
    ``index``: repeated positions summed (``accumulate``, ``np.add.at``) or the last write
    kept (``z[index] = x``)."""
    shape = tuple(shape)
    size = math.prod(shape)
    pos = positions(shape, index)
    flat = np.reshape(np.broadcast_to(x, pos.shape), (-1,))
    targets = np.reshape(pos, (-1,))
    items = np.arange(targets.size, dtype=np.intp)
    if targets.size == 0:
        return np.reshape(np.zeros_like(flat, shape=(size,)), shape)
    if not accumulate or np.unique(targets).size == targets.size:
        # NumPy's assignment keeps the last of repeated targets, as z[index] = x does
        return np.reshape(_placed(flat, targets, items, size), shape)
    order = np.argsort(targets, kind="stable")
    sorted_targets = targets[order]
    starts = np.r_[True, sorted_targets[1:] != sorted_targets[:-1]]
    run_start = np.maximum.accumulate(np.where(starts, np.arange(targets.size), 0))
    layer = np.empty(targets.size, dtype=np.intp)
    layer[order] = np.arange(targets.size) - run_start  # k for the k-th write to a position
    total = None
    for k in range(int(layer.max()) + 1):
        mine = layer == k
        part = _placed(flat, targets[mine], items[mine], size)
        total = part if total is None else total + part
    return np.reshape(total, shape)


def written(x: Any, values: Any, index: Any) -> Any:
    """``x`` with ``values`` written at ``index`` (the last of repeated writes staying), as
    a new array: ``np.where`` of a NumPy mask between the scattered values and ``x``."""
    shape = np.shape(x)
    hit = np.zeros(shape, dtype=bool)
    hit[index] = True
    dtype = x.dtype if hasattr(x, "dtype") else np.result_type(x)
    placed = scatter(values, shape, index, accumulate=False)
    return np.where(hit, placed, x).astype(dtype, copy=False)
