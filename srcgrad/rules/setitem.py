"""NumPy's subscript write ``y[index] = v`` as a primitive, with the derivative of what NumPy
computes when ``index`` repeats a position.

The compiler lowers ``y[i] = v`` (and ``y[i] += v``, as a read, an add and a write) to
``setitem``; the emitted code turns it back into an in-place write when nothing can notice.
NumPy writes the elements of ``v`` one after another, so where ``index`` names a position
twice (``y[[0, 2, 2]] = v``) only the last write stays. The derivative follows: an element
of ``v`` that a later one overwrote receives no cotangent (``take_written``), and the old
``y`` receives none where anything was written. Reads with repeated indices (``x[[0, 0]]``)
are ``getitem`` and still accumulate (``scatter_add``).

The runtime's ``t[idx] = v`` is PyTorch's ``index_put_`` instead (:mod:`.runtime_ops`), whose
backward gives every occurrence the cotangent, as PyTorch does; the two are different
primitives because they have different derivatives.

=================  ================================================================
setitem            x: ``setitem(g, 0, index)``; values: ``take_written(g, index)``
take_written       ``scatter_written(g, x_shape, index)``
scatter_written    ``take_written(g, index)``
=================  ================================================================

Which occurrence wins is found by asking NumPy itself (writing occurrence numbers through
the same index), so it is whatever NumPy's own write keeps. A basic index (ints, slices,
``None``, ``...``) cannot repeat a position and skips that work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import foreign as _foreign
from .dispatch import as_array, dispatching, foreign
from .helpers import is_basic_index, written_copy
from .registry import LINEAR, defrule

Shape = tuple[int, ...]


def _last_writes(shape: Shape, index: Any) -> np.ndarray:
    """A bool array shaped like ``x[index]`` (``x`` of ``shape``): True where that element
    of a write ``x[index] = v`` is the one that stays (no later one hits its position)."""
    picked = np.broadcast_to(np.zeros((), dtype=np.intp), shape)[index].shape
    order = np.arange(int(np.prod(picked)), dtype=np.intp).reshape(picked)
    winner = np.full(shape, -1, dtype=np.intp)
    winner[index] = order
    return winner[index] == order


@dispatching
def setitem(x: Any, values: Any, index: Any) -> Any:
    """A copy of ``x`` with ``values`` written at ``index`` (``x[index] = values``)."""
    return written_copy(x, values, index)


@dispatching
def take_written(x: Any, index: Any) -> Any:
    """``x[index]``, with zeros where a later element of the same write hits the same
    position: the cotangent of ``v`` in ``y[index] = v`` given ``y``'s cotangent ``x``."""
    if foreign(x):
        return x[index] if is_basic_index(index) else np.where(
            _foreign.in_library_of(_last_writes(np.shape(x), index), x),
            _foreign.gather(x, index), 0)
    x = as_array(x)
    if is_basic_index(index):
        return x[index]
    return np.where(_last_writes(x.shape, index), x[index], 0)


@dispatching
def scatter_written(x: Any, shape: Shape, index: Any) -> Any:
    """Zeros of ``shape`` (``x``'s dtype) with ``x`` written at ``index``, the last write to
    a repeated position staying: the adjoint of :func:`take_written`."""
    if foreign(x):
        return _foreign.scatter(x, shape, index, accumulate=False)
    x = as_array(x)
    z = np.zeros(tuple(shape), dtype=x.dtype)
    z[index] = x
    return z


defrule("setitem", setitem, inputs=("x", "values"), params=("index",), broadcasts=True,
        kind=LINEAR,
        vjp={"x": lambda g, index: setitem(g, 0.0, index),
             "values": lambda g, index: take_written(g, index)}, fresh=True)
defrule("take_written", take_written, inputs=("x",), params=("index",), kind=LINEAR,
        vjp={"x": lambda g, x_shape, index: scatter_written(g, x_shape, index)}, view=True)
defrule("scatter_written", scatter_written, inputs=("x",), params=("shape", "index"),
        kind=LINEAR, vjp={"x": lambda g, index: take_written(g, index)})
