"""``np.meshgrid``: a tuple-returning function (:mod:`.multi`), one ``meshgrid_piece`` per
input.

Piece ``index`` is input ``index`` (raveled) laid along its axis of the grid and repeated
over the others; the grid's shape is the inputs' sizes, with the first two swapped for
``indexing='xy'`` (NumPy's default, so piece 0 varies along axis 1). Each piece is linear
in the inputs: its cotangent for input ``index`` sums the other axes away
(``mesh_adjoint``), and for every other input it is zero. ``mesh_spread`` is
``mesh_adjoint``'s adjoint, so second order needs nothing else. ``sparse=True`` (pieces
that keep size-1 axes) is refused: write the reshape yourself.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .multi import Item, defmulti
from .registry import LINEAR, defrule


def _grid(xs_shape: Any, index: int, indexing: str) -> tuple[tuple[int, ...], int]:
    """The grid's shape and the axis along which input ``index`` varies."""
    shape = [math.prod(tuple(s)) for s in xs_shape]
    axis = index
    if indexing == "xy" and len(shape) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
        axis = {0: 1, 1: 0}.get(index, index)
    return tuple(shape), axis


def _spread(v: Any, shape: tuple[int, ...], axis: int) -> Any:
    lined = [1] * len(shape)
    lined[axis] = -1
    return np.copy(np.broadcast_to(np.reshape(v, lined), shape))  # a copy, as NumPy's


@dispatching
def meshgrid_piece(xs: Any, index: int, indexing: str = "xy") -> Any:
    """``np.meshgrid(*xs, indexing=indexing)[index]``."""
    shape, axis = _grid([np.shape(x) for x in xs], index, indexing)
    return _spread(np.ravel(xs[index]), shape, axis)


@dispatching
def mesh_adjoint(c: Any, xs_shape: Any, index: int, indexing: str, item: int) -> Any:
    """The cotangent of input ``item`` from piece ``index``'s cotangent ``c``."""
    c = as_array(c)
    if item != index:
        return np.zeros_like(c, shape=tuple(xs_shape[item]))  # (in c's library)
    _, axis = _grid(xs_shape, index, indexing)
    others = tuple(a for a in range(c.ndim) if a != axis)
    return np.reshape(np.sum(c, axis=others), tuple(xs_shape[item]))


@dispatching
def mesh_spread(c: Any, xs_shape: Any, index: int, indexing: str, item: int) -> Any:
    """The adjoint of :func:`mesh_adjoint`: ``c`` (shaped like input ``item``) spread over
    the grid along piece ``index``'s axis, or zeros of the grid when ``item != index``."""
    c = as_array(c)
    shape, axis = _grid(xs_shape, index, indexing)
    if item != index:
        return np.zeros_like(c, shape=shape)  # (in c's library)
    return _spread(np.ravel(c), shape, axis)


_PARAMS = ("xs_shape", "index", "indexing", "item")
defrule("mesh_adjoint", mesh_adjoint, inputs=("c",), params=_PARAMS, kind=LINEAR,
        vjp={"c": lambda g, xs_shape, index, indexing, item: mesh_spread(
            g, xs_shape, index, indexing, item)})
defrule("mesh_spread", mesh_spread, inputs=("c",), params=_PARAMS, kind=LINEAR,
        vjp={"c": lambda g, xs_shape, index, indexing, item: mesh_adjoint(
            g, xs_shape, index, indexing, item)})
defrule("meshgrid_piece", meshgrid_piece, inputs=("xs",), params=("index", "indexing"),
        variadic="xs", kind=LINEAR, form="xs, index, indexing='xy'",
        vjp={"xs": lambda g, xs_shape, index, indexing, i: mesh_adjoint(
            g, xs_shape, index, indexing, i)}, torch=("ExpandBackward0", 1))


def _items(env: dict[str, Any], ndims: dict[str, int | None]) -> list[Item]:
    if env["sparse"] is not False:
        raise ValueError("np.meshgrid(..., sparse=True) is not supported: reshape each "
                         "input to its axis instead (x[:, None]).")
    if env["indexing"] not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = list(env["xi"])
    return [Item("meshgrid_piece", {"xs": xs, "index": k, "indexing": env["indexing"]})
            for k in range(len(xs))]


defmulti("meshgrid", np.meshgrid, form="*xi, copy=True, sparse=False, indexing='xy'",
         inputs=(), item_rules=("meshgrid_piece",), items=_items, result=tuple)
