"""Reading elements by integer index arrays: ``take`` and ``take_along_axis``.

Both are ``kind=LINEAR`` in the array (the indices are static parameters, integers with
zero derivative). An index may repeat, so the adjoint scatters with accumulation, as the
adjoint of a fancy-index read does (``helpers.scatter_add``):

===============  ================================================================
take             ``take_adjoint(g, a_shape, indices, axis, mode)``: ``g`` added at the
                 indices (``axis=None``: of the flattened array); its adjoint is ``take``
take_along_axis  ``take_along_adjoint(g, arr_shape, indices, axis)``: likewise; its adjoint
                 is ``take_along_axis``
===============  ================================================================

``mode='wrap'`` / ``'clip'`` pick the element NumPy reads, so the adjoint adds there.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import foreign as _foreign
from .dispatch import as_array, dispatching, foreign
from .registry import LINEAR, defrule

Shape = tuple[int, ...]


def _resolved(indices: Any, n: int, mode: str) -> Any:
    """The positions ``take`` reads for ``indices`` on an axis of length ``n``."""
    idx = as_array(indices)
    if mode == "wrap":
        return idx % n
    if mode == "clip":
        return np.clip(idx, 0, n - 1)
    return np.where(idx < 0, idx + n, idx)


@dispatching
def take_adjoint(c: Any, shape: Shape, indices: Any, axis: Any = None,
                 mode: str = "raise") -> Any:
    """Zeros of ``shape`` with ``c`` added where ``np.take(x, indices, axis, mode=mode)``
    read it (repeated indices accumulate)."""
    shape = tuple(shape)
    c = as_array(c)
    if axis is None:
        size = math.prod(shape)
        return np.reshape(_added((size,), _resolved(indices, size, mode), c), shape)
    a = int(axis) % len(shape)
    return _added(shape, (*(slice(None),) * a, _resolved(indices, shape[a], mode)), c)


def _added(shape: Shape, index: Any, c: Any) -> Any:
    """Zeros of ``shape`` with ``c`` added at ``index`` (``np.add.at``; on a foreign array,
    which has no ``np.add.at``, the gathering form of ``foreign.scatter``)."""
    if foreign(c):
        return _foreign.scatter(c, shape, index, accumulate=True)
    z = np.zeros(shape, dtype=c.dtype)
    np.add.at(z, index, c)
    return z


def _along_index(indices: Any, axis: int, shape: Shape) -> tuple[Any, ...]:
    """The fancy index ``take_along_axis`` reads an array of ``shape`` through: ``indices``
    on ``axis``, an ``arange`` on every other axis (0 where the array's size-1 axis was
    broadcast against a longer one of ``indices``)."""
    idx = as_array(indices)
    parts: list[Any] = []
    for d, n in enumerate(shape):
        if d == axis:
            parts.append(idx)
        else:
            where = [1] * len(shape)
            where[d] = idx.shape[d]
            positions = np.arange(idx.shape[d]) if n == idx.shape[d] else np.zeros(
                idx.shape[d], dtype=int)
            parts.append(positions.reshape(where))
    return tuple(parts)


@dispatching
def take_along_adjoint(c: Any, shape: Shape, indices: Any, axis: Any = -1) -> Any:
    """Zeros of ``shape`` with ``c`` added where ``np.take_along_axis(x, indices, axis)``
    read it (repeated indices accumulate)."""
    shape = tuple(shape)
    c = as_array(c)
    if axis is None:
        size = math.prod(shape)
        return np.reshape(_added((size,), _resolved(indices, size, "raise"), c), shape)
    a = int(axis) % len(shape)
    idx = _resolved(indices, shape[a], "raise")
    # the other axes of ``indices`` broadcast against the array's (NumPy allows size 1)
    target = tuple(n if d == a else max(n, m)
                   for d, (n, m) in enumerate(zip(idx.shape, shape)))
    idx = np.broadcast_to(idx, target)
    return _added(shape, _along_index(idx, a, shape), np.broadcast_to(c, target))


defrule("take_adjoint", take_adjoint, inputs=("c",), params=("shape", "indices", "axis", "mode"),
        kind=LINEAR, form="c, shape, indices, axis=None, mode='raise'",
        vjp={"c": lambda g, indices, axis, mode: np.take(g, indices, axis, mode=mode)})
defrule("take_along_adjoint", take_along_adjoint, inputs=("c",),
        params=("shape", "indices", "axis"), kind=LINEAR, form="c, shape, indices, axis=-1",
        vjp={"c": lambda g, indices, axis: np.take_along_axis(g, indices, axis)})

defrule("take", np.take, inputs=("a",), params=("indices", "axis", "mode"), kind=LINEAR,
        form="a, indices, axis=None, *, mode='raise'",
        vjp={"a": lambda g, a_shape, indices, axis, mode:
             take_adjoint(g, a_shape, indices, axis, mode)},
        methods=("take",), pytorch=("sg.take",),
        kinks="An index taken more than once gets the sum of its cotangents; with "
              "mode='clip' or 'wrap' an out-of-range index reads, and so receives the "
              "gradient of, the edge or wrapped element.")
defrule("take_along_axis", np.take_along_axis, inputs=("arr",), params=("indices", "axis"),
        kind=LINEAR, form="arr, indices, axis=-1",
        vjp={"arr": lambda g, arr_shape, indices, axis:
             take_along_adjoint(g, arr_shape, indices, axis)},
        torch=("GatherBackward0", 1), pytorch=("t.take_along_dim", "sg.take_along_dim"),
        kinks="An index taken more than once gets the sum of its cotangents.")
