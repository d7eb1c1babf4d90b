"""Indexed reads and writes for foreign arrays (Dask, CuPy, ...), in calls that dispatch.

The helper primitives that read or write at an index (``getitem``, ``scatter_add``,
``setitem``, ``scatter_written``, ...) are written for ndarrays with in-place writes and
``np.add.at``. Neither exists for every array library: Dask refuses ``np.add.at`` ("out
parameter") and runs ``np.zeros`` eagerly on NumPy, and an item assignment into an ndarray
converts the foreign values. For a foreign array (``dispatch.foreign``) those helpers call
the functions here instead. Each turns the index, which is static NumPy data, into
*positions* with NumPy at call time (``np.arange(n).reshape(shape)[index]``) and then
moves the foreign values with gathers only: ``np.reshape``, ``np.concatenate``, ``np.take``
with a NumPy index array and ``+``. Every one of those dispatches to the array's own
library, so a Dask result stays lazy and a CuPy one stays on the device. A NumPy array
never meets a foreign one in arithmetic (CuPy refuses host arrays there): an index array is
only ever an index (``np.take`` does not dispatch on it), and a constant a rule needs as an
operand (a mask, ``np.eye``, an ``arange``) is first moved into the foreign array's library
by :func:`in_library_of`.

A scatter is the gather that undoes it: each target position reads the element written
there (``source``); a position nothing is written to reads a zero appended to the values.
Repeated positions are split into layers (the k-th write to each position), each layer a
gather, and the layers summed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import foreign

Shape = tuple[int, ...]


def in_library_of(value: Any, x: Any) -> Any:
    """``value`` (a NumPy constant, Python number or array) as an array of ``x``'s library
    when ``x`` is foreign (``np.asarray(value, like=x)``, NEP 35: CuPy copies it to the
    device, Dask wraps it); ``value`` itself otherwise, or when it is foreign already."""
    if not foreign(x) or foreign(value):
        return value
    return np.asarray(value, like=x)


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
    targets are distinct): one gather from ``flat`` with a zero appended, which every
    position nothing is written to reads."""
    source = np.full(size, np.shape(flat)[0], dtype=np.intp)
    source[targets] = items
    return np.take(np.concatenate([flat, np.zeros_like(flat, shape=(1,))]), source)


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
    a new array: one gather from ``x``'s elements followed by the written ones."""
    shape = tuple(np.shape(x))
    size = math.prod(shape)
    pos = positions(shape, index)
    if not foreign(x):  # (a NumPy x with foreign values: the result is of their library)
        x = in_library_of(x, values)
    values = in_library_of(values, x)
    dtype = x.dtype if hasattr(x, "dtype") else np.result_type(x)
    flat = np.reshape(np.broadcast_to(values, pos.shape), (-1,)).astype(dtype, copy=False)
    source = np.arange(size, dtype=np.intp)
    # NumPy's assignment keeps the last of repeated targets, as x[index] = values does
    source[np.reshape(pos, (-1,))] = size + np.arange(pos.size, dtype=np.intp)
    both = np.concatenate([np.reshape(x, (-1,)), flat])
    return np.reshape(np.take(both, source), shape)
