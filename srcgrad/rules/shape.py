"""Shape manipulation: linear rules that move, copy or regroup elements.

Every rule here is ``kind=LINEAR`` (forward mode applies the op to the tangent). One
line per rule:

=============  ==================================================================
transpose      ``transpose(g, inverse_permutation(axes))`` (``permute_dims`` too)
reshape        ``reshape(g, x_shape)``; likewise squeeze, expand_dims, ravel (flatten)
broadcast_to   ``unbroadcast(g, x_shape)``
moveaxis       ``moveaxis(g, destination, source)``
swapaxes       ``swapaxes(g, axis1, axis2)``
flip           ``flip(g, axis)``
concatenate    element i: ``getitem(g, concat_index(xs_shape, axis, i))`` (``concat``)
stack          element i: ``getitem(g, stack_index(xs_shape, axis, i))``; also what
               ``np.array([a, b])`` lowers to
tile           ``tile_adjoint(g, x_shape, reps)``: sums the copies (adjoint: ``tile``)
repeat         ``repeat_adjoint(g, x_shape, repeats, axis)`` (adjoint: ``repeat``)
copy           ``g``
astype         ``astype(g, x_dtype)``: the cotangent goes back to the input's dtype
=============  ==================================================================

The ``*_index`` and ``inverse_permutation`` helpers compute from static shapes only
(zero derivative); ``tile_adjoint`` and ``repeat_adjoint`` are linear primitives.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import foreign as _foreign
from .dispatch import as_array, dispatching, foreign
from .helpers import getitem, unbroadcast
from .registry import LINEAR, NONDIFF, defrule
from .torch_names import squeeze_node, transpose_node

Shape = tuple[int, ...]


def _linear(name: str, impl: Any, params: tuple[str, ...], vjp: Any, form: str | None = None,
            **fields: Any) -> None:
    defrule(name, impl, inputs=("x",), params=params, kind=LINEAR, form=form,
            vjp={"x": vjp}, **fields)


# --- static helpers ---------------------------------------------------------------------
@dispatching
def inverse_permutation(axes: Any) -> Any:
    """The axes that undo ``transpose(x, axes)`` (None stays None: reversal undoes itself)."""
    if axes is None:
        return None
    axes = tuple(axes)
    return tuple(int(i) for i in np.argsort([a % len(axes) for a in axes]))


@dispatching
def concat_index(xs_shape: tuple[Shape, ...], axis: int, i: int) -> tuple[Any, ...]:
    """The subscript of ``concatenate(xs, axis)`` that holds element ``i``."""
    shapes = [tuple(s) for s in xs_shape]
    a = axis % len(shapes[i])
    start = sum(s[a] for s in shapes[:i])
    return (*(slice(None),) * a, slice(start, start + shapes[i][a]))


@dispatching
def stack_index(xs_shape: tuple[Shape, ...], axis: int, i: int) -> tuple[Any, ...]:
    """The subscript of ``stack(xs, axis)`` that holds element ``i``."""
    a = axis % (len(tuple(xs_shape[i])) + 1)
    return (*(slice(None),) * a, i)


defrule("inverse_permutation", inverse_permutation, inputs=(), params=("axes",), kind=NONDIFF)
defrule("concat_index", concat_index, inputs=(), params=("xs_shape", "axis", "i"),
        kind=NONDIFF)
defrule("stack_index", stack_index, inputs=(), params=("xs_shape", "axis", "i"), kind=NONDIFF)


# --- linear helper primitives -------------------------------------------------------------
def _tile_dims(shape: Shape, reps: Any) -> tuple[Shape, Shape]:
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    d = max(len(reps), len(shape))
    return (1,) * (d - len(shape)) + shape, (1,) * (d - len(reps)) + reps


@dispatching
def tile_adjoint(c: Any, shape: Shape, reps: Any) -> Any:
    """Sum the copies ``tile(x, reps)`` made: ``c`` back to ``x``'s ``shape``."""
    shape = tuple(shape)
    dims, reps = _tile_dims(shape, reps)
    pairs = tuple(n for pair in zip(reps, dims) for n in pair)  # (r0, n0, r1, n1, ...)
    summed = np.sum(np.reshape(c, pairs), axis=tuple(range(0, len(pairs), 2)))
    return np.reshape(summed, shape)


@dispatching
def repeat_adjoint(c: Any, shape: Shape, repeats: Any, axis: Any = None) -> Any:
    """Sum the copies ``repeat(x, repeats, axis)`` made: ``c`` back to ``x``'s ``shape``."""
    shape = tuple(shape)
    c = as_array(c)
    a = 0 if axis is None else axis % len(shape)
    n = math.prod(shape) if axis is None else shape[a]
    owner = np.repeat(np.arange(n), repeats)  # which element each copy came from
    moved = np.moveaxis(c, a, 0)
    if foreign(c):  # no np.add.at on Dask/CuPy: a gathering form
        total = _foreign.scatter(moved, (n, *moved.shape[1:]), owner, accumulate=True)
    else:
        total = np.zeros((n, *moved.shape[1:]), dtype=c.dtype)
        np.add.at(total, owner, moved)
    return np.reshape(np.moveaxis(total, 0, a), shape)


defrule("tile_adjoint", tile_adjoint, inputs=("c",), params=("shape", "reps"), kind=LINEAR,
        vjp={"c": lambda g, reps: np.tile(g, reps)})
defrule("repeat_adjoint", repeat_adjoint, inputs=("c",), params=("shape", "repeats", "axis"),
        kind=LINEAR, form="c, shape, repeats, axis=None",
        vjp={"c": lambda g, repeats, axis: np.repeat(g, repeats, axis)})


@dispatching
def astype(x: Any, dtype: Any) -> Any:
    """``x`` converted to ``dtype`` (a copy), like ``x.astype(dtype)`` on any array type."""
    return as_array(x).astype(dtype)


# --- the rules ------------------------------------------------------------------------------
_linear("transpose", np.transpose, ("axes",), form="x, axes=None",
        aliases=(np.permute_dims,),
        vjp=lambda g, axes: np.transpose(g, inverse_permutation(axes)),
        torch=transpose_node, methods=("transpose",), method_spread=True, attributes=("T",),
        view=True,
        pytorch=("t.T", "t.t", "t.transpose", "t.permute", "sg.t", "sg.transpose", "sg.permute"))
_linear("reshape", np.reshape, ("shape",), vjp=lambda g, x_shape: np.reshape(g, x_shape),
        torch=("ViewBackward0", 1), methods=("reshape",), method_spread=True, view=True,
        pytorch=("t.reshape", "t.view", "sg.reshape"))
_linear("squeeze", np.squeeze, ("axis",), form="x, axis=None",
        vjp=lambda g, x_shape: np.reshape(g, x_shape),
        torch=squeeze_node, methods=("squeeze",), view=True,
        pytorch=("t.squeeze", "sg.squeeze"))
_linear("expand_dims", np.expand_dims, ("axis",),
        vjp=lambda g, x_shape: np.reshape(g, x_shape), torch=("UnsqueezeBackward0", 1), view=True,
        pytorch=("t.unsqueeze", "sg.unsqueeze"))
_linear("ravel", np.ravel, (), vjp=lambda g, x_shape: np.reshape(g, x_shape),
        torch=("ViewBackward0", 1), methods=("flatten", "ravel"), view=True,
        pytorch=("t.ravel", "t.flatten", "sg.flatten"))
_linear("broadcast_to", np.broadcast_to, ("shape",),
        vjp=lambda g, x_shape: unbroadcast(g, x_shape), torch=("ExpandBackward0", 1), view=True,
        pytorch=("t.expand", "t.expand_as"))
_linear("moveaxis", np.moveaxis, ("source", "destination"),
        vjp=lambda g, source, destination: np.moveaxis(g, destination, source),
        torch=("PermuteBackward0", 1), view=True,
        pytorch=("t.movedim", "t.moveaxis", "sg.movedim", "sg.moveaxis"))
_linear("swapaxes", np.swapaxes, ("axis1", "axis2"),
        vjp=lambda g, axis1, axis2: np.swapaxes(g, axis1, axis2),
        torch=("TransposeBackward0", 1), methods=("swapaxes",), view=True,
        pytorch=("t.swapaxes", "t.swapdims"))
_linear("flip", np.flip, ("axis",), form="x, axis=None",
        vjp=lambda g, axis: np.flip(g, axis), torch=("FlipBackward0", 1), view=True,
        pytorch=("t.flip", "sg.flip"))
_linear("tile", np.tile, ("reps",), vjp=lambda g, x_shape, reps: tile_adjoint(g, x_shape, reps),
        torch=("RepeatBackward0", 1),
        pytorch=("t.repeat",))
_linear("repeat", np.repeat, ("repeats", "axis"), form="x, repeats, axis=None",
        vjp=lambda g, x_shape, repeats, axis: repeat_adjoint(g, x_shape, repeats, axis),
        torch=("RepeatInterleaveBackward0", 1), methods=("repeat",))
_linear("copy", np.copy, (), vjp=lambda g: g,
        torch=("CloneBackward0", 1), methods=("copy",), fresh=True,
        pytorch=("t.clone", "sg.clone"))
_linear("astype", astype, ("dtype",), vjp=lambda g, x_dtype: astype(g, x_dtype),
        aliases=(np.astype,) if hasattr(np, "astype") else (),
        torch=("ToCopyBackward0", 1), methods=("astype",),
        pytorch=("t.to", "t.float", "t.double"))  # np.astype: NumPy >= 2.1

def joined_back(ct: Any, dtype: Any, x_dtype: Any) -> Any:
    """A joined input's cotangent in its own dtype when ``dtype=`` made the result another
    (no cast otherwise: the common case stays one slice)."""
    return ct if dtype is None else astype(ct, x_dtype)


defrule("concatenate", np.concatenate, inputs=("xs",), params=("axis", "dtype", "casting"),
        variadic="xs",
        kind=LINEAR, form="xs, axis=0, *, dtype=None, casting='same_kind'",
        aliases=(np.concat,),
        vjp={"xs": lambda g, xs_shape, xs_dtype, axis, dtype, i: joined_back(
            getitem(g, concat_index(xs_shape, axis, i)), dtype, xs_dtype[i])},
        torch="CatBackward0",
        pytorch=("sg.cat", "sg.concat", "sg.concatenate"))
defrule("stack", np.stack, inputs=("xs",), params=("axis", "dtype", "casting"),
        variadic="xs", kind=LINEAR,
        form="xs, axis=0, *, dtype=None, casting='same_kind'",
        vjp={"xs": lambda g, xs_shape, xs_dtype, axis, dtype, i: joined_back(
            getitem(g, stack_index(xs_shape, axis, i)), dtype, xs_dtype[i])},
        torch="StackBackward0",
        pytorch=("sg.stack",))
