"""Splitting an array into pieces: ``np.split array_split hsplit vsplit dsplit unstack``.

Tuple-returning functions (:mod:`.multi`): each piece is one primitive call, so the
derivative of a piece is that of a slice.

============  ==================================================================
split_piece   piece ``index`` of ``np.split``/``np.array_split(x, sections, axis)``
              (``equal``: ``np.split``'s rule that an int must divide the length);
              VJP ``scatter_add(g, x_shape, split_index(...))``, linear
unstack_piece ``np.unstack(x, axis=axis)[index]`` (``x.unbind(dim)``); VJP likewise
============  ==================================================================

How many pieces: ``sections`` (an int) or ``len(sections) + 1`` (a list of indices), known
when the function is compiled; ``np.unstack`` makes ``x.shape[axis]`` pieces, which the
compiler does not know (it knows ranks, not lengths), so it refuses ``np.unstack`` there
with advice, and the runtime, which has the array, supports it. ``hsplit``'s axis depends
on the input's rank (``1``, or ``0`` for a 1-d array), decided when the call is bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .helpers import scatter_add
from .multi import Item, ItemCountUnknown, defmulti, static_int, static_ints
from .registry import LINEAR, NONDIFF, defrule
from .torch_names import split_node

Shape = tuple[int, ...]


@dispatching
def split_index(x_shape: Any, sections: Any, axis: int, index: int, equal: bool) -> Any:
    """The subscript of ``x`` (shaped ``x_shape``) that is piece ``index`` of
    ``np.split(x, sections, axis)`` (``equal``) or ``np.array_split``."""
    shape = tuple(x_shape)
    if not shape:
        raise ValueError("array split does not work on a 0-d array")
    a = axis % len(shape)
    n = shape[a]
    if isinstance(sections, (list, tuple)):
        bounds = (0, *sections, n)
        return (*(slice(None),) * a, slice(bounds[index], bounds[index + 1]))
    count = int(sections)
    if count <= 0:
        raise ValueError("number sections must be larger than 0.")
    if equal and n % count:
        raise ValueError("array split does not result in an equal division")
    each, extra = divmod(n, count)
    start = index * each + min(index, extra)
    return (*(slice(None),) * a, slice(start, start + each + (index < extra)))


@dispatching
def unstack_index(x_shape: Any, axis: int, index: int) -> Any:
    """The subscript of ``x`` that is ``np.unstack(x, axis=axis)[index]``."""
    a = axis % len(tuple(x_shape))
    return (*(slice(None),) * a, index)


@dispatching
def split_piece(x: Any, sections: Any, axis: int, index: int, equal: bool) -> Any:
    """Piece ``index`` of ``np.split(x, sections, axis)`` (``equal``) / ``np.array_split``:
    a view of ``x``, as NumPy's pieces are."""
    return as_array(x)[split_index(np.shape(x), sections, axis, index, equal)]


@dispatching
def unstack_piece(x: Any, axis: int, index: int) -> Any:
    """``np.unstack(x, axis=axis)[index]``: a view of ``x``."""
    return as_array(x)[unstack_index(np.shape(x), axis, index)]


defrule("split_index", split_index, inputs=(),
        params=("x_shape", "sections", "axis", "index", "equal"), kind=NONDIFF)
defrule("unstack_index", unstack_index, inputs=(), params=("x_shape", "axis", "index"),
        kind=NONDIFF)
defrule("split_piece", split_piece, inputs=("x",),
        params=("sections", "axis", "index", "equal"), kind=LINEAR,
        vjp={"x": lambda g, x_shape, sections, axis, index, equal: scatter_add(
            g, x_shape, split_index(x_shape, sections, axis, index, equal))},
        torch=split_node, view=True)
defrule("unstack_piece", unstack_piece, inputs=("x",), params=("axis", "index"), kind=LINEAR,
        vjp={"x": lambda g, x_shape, axis, index: scatter_add(
            g, x_shape, unstack_index(x_shape, axis, index))},
        torch=("UnbindBackward0", 1), view=True)


# --- the public functions -------------------------------------------------------------------
_COUNT_ADVICE = ("Pass the number of pieces as an int or the split points as a list of "
                 "ints written in the code (np.split(x, 3), np.split(x, [2, 5])).")


def _sections(value: Any, spelling: str) -> Any:
    if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) == 1:
        return static_ints(value, "the split points", spelling, _COUNT_ADVICE)
    return static_int(value, "the number of pieces", spelling, _COUNT_ADVICE)


def _pieces(x: Any, sections: Any, axis: Any, equal: bool, spelling: str) -> list[Item]:
    sections = _sections(sections, spelling)
    axis = static_int(axis, "the axis", spelling, "Write the axis as an int constant.")
    count = len(sections) + 1 if isinstance(sections, tuple) else sections
    if count <= 0:
        raise ValueError(f"{spelling}: number sections must be larger than 0.")
    form = "sizes" if isinstance(sections, tuple) else None  # PyTorch's node name
    return [Item("split_piece", {"x": x, "sections": sections, "axis": axis, "index": i,
                                 "equal": equal}, form) for i in range(count)]


def _axis_split(name: str, axis_of: Any, least: int) -> None:
    """``hsplit``/``vsplit``/``dsplit``: ``np.split`` along an axis fixed by the rank."""
    spelling = f"np.{name}"

    def items(env: dict[str, Any], ndims: dict[str, int | None]) -> list[Item]:
        nd = ndims["ary"]
        if nd is None:
            raise ItemCountUnknown(f"{spelling} splits along an axis that depends on the "
                                   "array's number of dimensions, which is not known here.",
                                   "Use np.split(x, n, axis=...) with the axis written out.")
        if nd < least:
            raise ValueError(f"{spelling} only works on arrays of {least} or more dimensions.")
        return _pieces(env["ary"], env["indices_or_sections"], axis_of(nd), True, spelling)

    defmulti(name, getattr(np, name), form="ary, indices_or_sections", inputs=("ary",),
             item_rules=("split_piece",), items=items, result=list)


defmulti("split", np.split, form="ary, indices_or_sections, axis=0", inputs=("ary",),
         item_rules=("split_piece",),
         items=lambda env, ndims: _pieces(env["ary"], env["indices_or_sections"],
                                          env["axis"], True, "np.split"),
         result=list)
defmulti("array_split", np.array_split, form="ary, indices_or_sections, axis=0",
         inputs=("ary",), item_rules=("split_piece",),
         items=lambda env, ndims: _pieces(env["ary"], env["indices_or_sections"],
                                          env["axis"], False, "np.array_split"),
         result=list)
_axis_split("hsplit", lambda nd: 1 if nd > 1 else 0, 1)
_axis_split("vsplit", lambda nd: 0, 2)
_axis_split("dsplit", lambda nd: 2, 3)


def _unstack_items(env: dict[str, Any], ndims: dict[str, int | None]) -> list[Item]:
    x = env["x"]
    axis = static_int(env["axis"], "the axis", "np.unstack", "Write the axis as an int.")
    shape = getattr(x, "shape", None)  # a runtime Tensor or array has it; a traced value not
    if not isinstance(shape, tuple):
        raise ItemCountUnknown(
            "np.unstack returns one item per row along its axis, and that length is not "
            "known when the function is compiled.",
            "Use np.split(x, n, axis=...) with n written out (each piece keeps the axis: "
            "np.squeeze it), or index the rows: x[0], x[1].")
    if not shape:
        raise ValueError("Input array must be at least 1-d.")
    n = shape[axis % len(shape)]
    return [Item("unstack_piece", {"x": x, "axis": axis, "index": i}) for i in range(n)]


if hasattr(np, "unstack"):  # NumPy >= 2.1
    defmulti("unstack", np.unstack, form="x, /, *, axis=0", inputs=("x",),
             item_rules=("unstack_piece",), items=_unstack_items)
