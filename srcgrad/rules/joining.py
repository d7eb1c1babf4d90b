"""Joining arrays: ``vstack hstack dstack column_stack append`` and ``atleast_1d/2d/3d``.

Each joins its arrays with ``concatenate`` after promoting them to a minimum rank (NumPy's
definitions), so each is linear (forward mode applies it to the tangents) and the
cotangent of array ``i`` is its slice of ``g``, reshaped back to the array's own shape:

============  ================================================================
atleast_Nd    ``reshape(g, x_shape)``
vstack        rows: ``atleast_2d`` each, joined along axis 0
hstack        ``atleast_1d`` each, along axis 0 for 1-d arrays, else axis 1
dstack        ``atleast_3d`` each (``(n,)`` -> ``(1, n, 1)``), along axis 2
column_stack  1-d arrays as columns ``(n, 1)``, along axis 1
append        ``axis=None``: both raveled, then joined; else along ``axis``
============  ================================================================

The piece of ``g`` that belongs to array ``i`` depends on the shapes, so it is computed by
helper primitives from the shapes alone (zero derivative): ``joined_index(xs_shape, how,
i)`` and ``append_index(arr_shape, values_shape, axis, i)``, subscripts for ``getitem``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import dispatching
from .helpers import getitem
from .registry import LINEAR, NONDIFF, defrule
from .shape import concat_index, joined_back
from .torch_names import atleast_node

Shape = tuple[int, ...]


def _promoted(shape: Any, how: str) -> Shape:
    """``shape`` as the joining function ``how`` promotes it before concatenating."""
    s = tuple(int(n) for n in shape)
    if how == "h":
        return s or (1,)
    if how == "v":
        return {0: (1, 1), 1: (1, *s)}.get(len(s), s)
    if how == "d":
        return {0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s)
    return {0: (1, 1), 1: (*s, 1)}.get(len(s), s)  # column_stack


_AXIS = {"v": 0, "d": 2, "column": 1}


@dispatching
def joined_index(xs_shape: Any, how: str, i: int) -> tuple[Any, ...]:
    """The subscript of ``vstack``/``hstack``/``dstack``/``column_stack`` (``how`` = v, h,
    d, column) of arrays shaped ``xs_shape`` that holds array ``i``."""
    shapes = [_promoted(s, how) for s in xs_shape]
    axis = _AXIS[how] if how != "h" else (0 if len(shapes[0]) == 1 else 1)
    return concat_index(tuple(shapes), axis, i)


@dispatching
def append_index(arr_shape: Any, values_shape: Any, axis: Any, i: int) -> tuple[Any, ...]:
    """The subscript of ``np.append(arr, values, axis)`` that holds ``arr`` (``i=0``) or
    ``values`` (``i=1``)."""
    if axis is None:
        n = math.prod(tuple(arr_shape))
        return (slice(0, n),) if i == 0 else (slice(n, None),)
    return concat_index((tuple(arr_shape), tuple(values_shape)), axis, i)


defrule("joined_index", joined_index, inputs=(), params=("xs_shape", "how", "i"),
        kind=NONDIFF)
defrule("append_index", append_index, inputs=(),
        params=("arr_shape", "values_shape", "axis", "i"), kind=NONDIFF)


def _joining(name: str, impl: Any, how: str, **fields: Any) -> None:
    # NumPy 2's vstack/hstack take dtype= and casting= (dstack/column_stack do not)
    params = ("dtype", "casting") if how in ("v", "h") else ()
    form = "tup, *, dtype=None, casting='same_kind'" if params else "tup"
    def piece(g: Any, tup_shape: Any, i: int) -> Any:
        return np.reshape(getitem(g, joined_index(tup_shape, how, i)), tup_shape[i])

    vjp = ((lambda g, tup_shape, tup_dtype, dtype, i:
            joined_back(piece(g, tup_shape, i), dtype, tup_dtype[i])) if params
           else piece)
    defrule(name, impl, inputs=("tup",), params=params, variadic="tup", kind=LINEAR,
            form=form, **fields, vjp={"tup": vjp})


# np.row_stack: NumPy 2's deprecated alias of vstack, while the installed NumPy has it
_joining("vstack", np.vstack, "v",
         aliases=(np.row_stack,) if hasattr(np, "row_stack") else ())
_joining("hstack", np.hstack, "h")
_joining("dstack", np.dstack, "d")
_joining("column_stack", np.column_stack, "column")

defrule("append", np.append, inputs=("arr", "values"), params=("axis",), kind=LINEAR,
        form="arr, values, axis=None",
        vjp={"arr": lambda g, arr_shape, values_shape, axis: np.reshape(
                 getitem(g, append_index(arr_shape, values_shape, axis, 0)), arr_shape),
             "values": lambda g, arr_shape, values_shape, axis: np.reshape(
                 getitem(g, append_index(arr_shape, values_shape, axis, 1)), values_shape)})

def _one_array(name: str) -> Any:
    """``np.atleast_2d(a, b)`` (and its 1d and 3d kin) returns a tuple: refused by name
    when the call is bound (shape, issue 14), rather than as a call with too many
    arguments."""

    def canonical(args: Any, kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if len(args) > 1:
            raise ValueError(f"np.{name} of several arrays returns a tuple of arrays, which "
                             f"srcgrad does not differentiate; call np.{name} once per "
                             "array")
        return list(args), kwargs

    return canonical


# views of their argument, as reshape is (the array itself when it has the dims)
for _fn in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    defrule(_fn.__name__, _fn, inputs=("x",), kind=LINEAR, view=True,
            canonical=_one_array(_fn.__name__),
            vjp={"x": lambda g, x_shape: np.reshape(g, x_shape)},
            torch=atleast_node, pytorch=(f"sg.{_fn.__name__}",))
