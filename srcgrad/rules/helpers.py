"""Helper primitives: the shape-dependent pieces the rules and the emitted code call.

Rule bodies never branch on shapes (DESIGN.md principle 2). Whatever depends on a shape
or ndim lives here, as a primitive that decides at run time and has a rule of its own, so
code that calls it can be differentiated again. Each is wrapped by :func:`dispatching`, so
called on Tensors or on the compiler's symbolic values it records itself like ``np.sin``.

- ``unbroadcast(x, shape)``: sum ``x`` down to ``shape`` (undoes NumPy broadcasting);
- ``rebroadcast(x, shape)``: broadcast ``x`` up to ``shape`` (no-op if it has it): its adjoint;
- ``unreduce(x, shape, axis, keepdims)``: broadcast a reduction's cotangent back to ``shape``;
- ``reduced_count(shape, axis)``: how many elements a reduction over ``axis`` combined;
- ``scatter_add(x, shape, index)``: zeros of ``shape`` with ``x`` added at ``index``
  (repeated indices accumulate): the adjoint of ``x[index]``;
- ``getitem(x, index)``: ``x[index]`` as a function.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import foreign as _foreign
from .blas_sums import batch_summable, blas_summable, sum_first_axis, sum_last_axis_keepdims
from .dispatch import as_array, dispatching, foreign
from .registry import LINEAR, NONDIFF, defrule

Shape = tuple[int, ...]


def _normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(a % ndim if ndim else 0 for a in axes))


def reduced_shape(shape: Shape, axis: Any = None, keepdims: bool = False) -> Shape:
    """The shape of a reduction of an array of ``shape`` over ``axis``."""
    n = len(shape)
    if type(axis) is int and n:  # (one axis: tuple slicing, per call)
        a = axis % n
        return shape[:a] + ((1,) if keepdims else ()) + shape[a + 1:]
    axes = _normalize_axes(axis, n)
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _shape_of(x: Any) -> Shape:
    """``np.shape(x)``, without its ``asarray`` for the common types (per adjoint, per call)."""
    kind = type(x)
    if kind is np.ndarray:
        return x.shape
    if kind is float or kind is int:
        return ()
    return np.shape(x)


_SMALL = 1 << 14  # elements: past this a broadcast view (no memory) pays for its wrapper


@dispatching
def unbroadcast(x: Any, shape: Shape) -> Any:
    """Sum ``x`` over the axes NumPy broadcasting added or stretched to reach ``shape``."""
    if type(shape) is not tuple:
        shape = tuple(shape)
    # (this runs per adjoint, per call: an ndarray's own attribute, no np.shape call)
    xshape = _shape_of(x)
    if xshape == shape:
        return x
    # np.add.reduce is np.sum without its Python wrapper (this runs per adjoint, per call);
    # a foreign array (Dask) takes np.sum, which it implements, where ufunc.reduce it may not
    total = np.add.reduce if type(x) is np.ndarray else np.sum
    lead = len(xshape) - len(shape)
    if lead > 0:
        if lead == 1 and len(xshape) == 2 and batch_summable(x):  # a bias of a batch
            x = sum_first_axis(x)
        else:
            x = total(x, axis=0 if lead == 1 else tuple(range(lead)))
        xshape = xshape[lead:]
        if xshape == shape:  # the common case: only leading axes were added (a bias)
            return x
    if (len(xshape) == len(shape) > 1 and shape[-1] == 1 and xshape[-1] != 1
            and xshape[:-1] == shape[:-1]
            and blas_summable(x)):  # the last axis only: a keepdims row statistic's adjoint
        return sum_last_axis_keepdims(x)
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and xshape[i] != 1)
    if stretched:
        x = total(x, axis=stretched, keepdims=True)
    return x


@dispatching
def rebroadcast(x: Any, shape: Shape) -> Any:
    """``x`` broadcast to ``shape``; ``x`` itself when it already has that shape."""
    if type(shape) is not tuple:
        shape = tuple(shape)
    # (per call, usually a no-op: an ndarray's own attribute, no np.shape call)
    return x if _shape_of(x) == shape else np.broadcast_to(x, shape)


@dispatching
def unreduce(x: Any, shape: Shape, axis: Any = None, keepdims: bool = False) -> Any:
    """Broadcast the cotangent of a reduction over ``axis`` back to the input's ``shape``."""
    if type(shape) is not tuple:
        shape = tuple(shape)
    if not keepdims and axis is not None and shape:
        ones = reduced_shape(shape, axis, keepdims=True)
        if _shape_of(x) == reduced_shape(shape, axis):  # the reduction's own result: a
            # reshape, cheaper than np.expand_dims
            x = x.reshape(ones) if type(x) is np.ndarray else np.reshape(x, ones)
        else:
            x = np.expand_dims(x, _normalize_axes(axis, len(shape)))
    if _shape_of(x) == shape:
        return x
    # a small result is cheaper filled than viewed: np.broadcast_to's Python wrapper costs
    # more than writing a few thousand numbers
    if type(x) is float and math.prod(shape) <= _SMALL:
        out = np.empty(shape)
        out.fill(x)
        return out
    # (a NumPy float scalar too: a full reduction's cotangent, e.g. a mean's g / N)
    if (type(x) is np.ndarray or isinstance(x, np.floating)) and x.dtype.kind == "f" \
            and math.prod(shape) <= _SMALL:
        out = np.empty(shape, dtype=x.dtype)
        out[...] = x  # (np.copyto's dispatch costs as much as the copy)
        return out
    return np.broadcast_to(x, shape)


@dispatching
def reduced_count(shape: Shape, axis: Any = None) -> int:
    """The number of elements combined by a reduction of ``shape`` over ``axis``."""
    if axis is None:  # (a mean's adjoint, per call)
        return math.prod(shape)
    shape = tuple(shape)
    return math.prod(shape[a] for a in _normalize_axes(axis, len(shape)))


def is_basic_index(index: Any) -> bool:
    """Ints, slices, ``None`` and ``...`` only: an index that names each position once."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, np.integer, slice))
               for p in parts)


def _inserted_axes(index: Any) -> int:
    """How many axes of length 1 an index of whole slices (``:``), ``None`` and ``...``
    inserts (it reads every element once, in order); 0 for any other index."""
    parts = index if type(index) is tuple else (index,)
    if all(p is None or p is Ellipsis or (type(p) is slice and p == _WHOLE) for p in parts):
        return parts.count(None)
    return 0


_WHOLE = slice(None)


@dispatching
def scatter_add(x: Any, shape: Shape, index: Any) -> Any:
    """Zeros of ``shape`` (``x``'s dtype) with ``x`` added at ``index``; repeats accumulate."""
    if foreign(x):  # no in-place writes or np.add.at on Dask/CuPy: a gathering form
        return _foreign.scatter(x, shape, index, accumulate=True)
    x = as_array(x)
    inserted = _inserted_axes(index)
    if inserted and x.ndim == len(shape) + inserted and x.size == math.prod(shape):
        # ``m[:, None]``'s adjoint (a softmax's row statistic): the same numbers, reshaped;
        # a copy, so the result stays a new array as the general path's is
        return x.reshape(shape).copy()
    z = np.zeros(tuple(shape), dtype=x.dtype)
    if is_basic_index(index):
        z[index] += x
    else:
        np.add.at(z, index, x)
    return z


@dispatching
def getitem(x: Any, index: Any) -> Any:
    """``x[index]``: subscript reads as a primitive."""
    if foreign(x) and not is_basic_index(index):
        return _foreign.gather(x, index)
    return as_array(x)[index]


defrule("unbroadcast", unbroadcast, inputs=("x",), params=("shape",), kind=LINEAR,
        vjp={"x": lambda g, x_shape: rebroadcast(g, x_shape)}, view=True)
defrule("rebroadcast", rebroadcast, inputs=("x",), params=("shape",), kind=LINEAR,
        vjp={"x": lambda g, x_shape: unbroadcast(g, x_shape)}, view=True)
defrule("unreduce", unreduce, inputs=("x",), params=("shape", "axis", "keepdims"), kind=LINEAR,
        form="x, shape, axis=None, keepdims=False",
        vjp={"x": lambda g, axis, keepdims: np.sum(g, axis=axis, keepdims=keepdims)}, view=True)
defrule("reduced_count", reduced_count, inputs=(), params=("shape", "axis"), kind=NONDIFF,
        form="shape, axis=None")
defrule("scatter_add", scatter_add, inputs=("x",), params=("shape", "index"), kind=LINEAR,
        vjp={"x": lambda g, index: getitem(g, index)})
defrule("getitem", getitem, inputs=("x",), params=("index",), kind=LINEAR,
        vjp={"x": lambda g, x_shape, index: scatter_add(g, x_shape, index)},
        torch="IndexBackward0", view=True,
        pytorch=("t[index]",))


def written_copy(x: Any, values: Any, index: Any) -> Any:
    """A copy of ``x`` with ``values`` written at ``index``: the forward value of both the
    compiler's ``setitem`` and the runtime's ``index_put`` (they differ in their derivative
    at repeated indices, not in what they compute). Plain, not a primitive."""
    if foreign(x) or foreign(values):
        return _foreign.written(x, values, index)
    result = np.array(x, copy=True)
    result[index] = values
    return result
