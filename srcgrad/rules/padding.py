"""``np.pad`` in its copying modes: ``constant`` (with ``constant_values``), ``edge``,
``reflect``, ``symmetric``, ``wrap``; pad widths in every form NumPy takes (an int, a
pair, one pair per axis).

Each output element is an input element or one of the constants, so ``pad`` is linear in
the array and the constants jointly (``kind=LINEAR``: forward mode pads the tangent with
the constants' tangents). The array's VJP is ``pad_adjoint(g, array_shape, pad_width,
mode)``, which for ``constant`` is the slice that holds the array and for the other modes
adds every copy back onto the element it came from (a scatter-add of the padded
regions); ``pad_adjoint`` is linear and its own adjoint is ``pad`` with zeros. The
constants' VJP is ``pad_value_adjoint(g, array_shape, pad_width, value_shape)``: the sum
of ``g`` over the region each ``(axis, side)`` constant filled (NumPy pads axis by axis,
so a corner holds the later axis' constant); its adjoint pads zeros with ``g`` as the
constants. Other modes (``maximum``, ``mean``, ``linear_ramp``, a function, ...) are
refused when the call is bound, naming the modes that differentiate.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching, foreign
from .foreign import scatter
from .registry import LINEAR, NONDIFF, defrule
from .shape import astype

Shape = tuple[int, ...]
MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _widths(pad_width: Any, ndim: int) -> np.ndarray:
    """``pad_width`` as NumPy reads it: one ``(before, after)`` pair per axis."""
    return np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (ndim, 2))


@dispatching
def pad(array: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> Any:
    """``np.pad(array, pad_width, mode, constant_values=...)`` for the modes in MODES."""
    if mode == "constant":
        return np.pad(array, pad_width, mode, constant_values=constant_values)
    return np.pad(array, pad_width, mode)


@dispatching
def pad_adjoint(c: Any, shape: Shape, pad_width: Any, mode: str = "constant") -> Any:
    """The adjoint of ``x -> pad(x, pad_width, mode)`` for ``x`` of ``shape``."""
    shape = tuple(shape)
    c = as_array(c)
    widths = _widths(pad_width, len(shape))
    if mode == "constant":
        return c[tuple(slice(int(b), int(b) + n) for (b, _), n in zip(widths, shape))]
    size = math.prod(shape)
    source = np.pad(np.arange(size).reshape(shape), widths, mode)  # where each copy came from
    if foreign(c):  # (bincount is NumPy's: the foreign scatter sums the copies)
        return np.reshape(scatter(np.reshape(c, (-1,)), (size,), source.ravel(), True),
                          shape)
    summed = np.bincount(source.ravel(), weights=c.ravel(), minlength=size)
    return np.reshape(summed.astype(c.dtype, copy=False), shape)


@dispatching
def zeros_shaped(shape: Shape, like: Any) -> Any:
    """Zeros of ``shape`` in ``like``'s dtype."""
    return np.zeros(tuple(shape), np.result_type(like))


@dispatching
def pad_value_adjoint(c: Any, shape: Shape, pad_width: Any, value_shape: Shape,
                      mode: str = "constant") -> Any:
    """The adjoint of ``v -> pad(zeros(shape), pad_width, mode, constant_values=v)`` for
    ``v`` of ``value_shape``: per ``(axis, side)``, the sum of ``c`` where that constant
    went (nowhere in a mode other than ``constant``, which ignores the constants)."""
    shape = tuple(shape)
    c = as_array(c)
    ndim = len(shape)
    sums = np.zeros((ndim, 2), dtype=c.dtype)
    if mode == "constant":
        widths = _widths(pad_width, ndim)
        zeros = np.zeros(shape, dtype=c.dtype)
        for k in range(2 * ndim):
            onehot = np.zeros((ndim, 2), dtype=c.dtype)
            onehot[k // 2, k % 2] = 1.0
            sums[k // 2, k % 2] = np.sum(c * np.pad(zeros, widths, constant_values=onehot))
    return _summed_to(sums, tuple(value_shape))


def _summed_to(sums: Any, value_shape: Shape) -> Any:
    """The (ndim, 2) constants' cotangents summed down to how ``constant_values`` was
    given: a scalar, ``(v,)``, ``(before, after)``, or ``((before, after),)``."""
    if value_shape == sums.shape:
        return sums
    if value_shape == ():
        return np.sum(sums)
    if value_shape in ((1,), (1, 1)):
        return np.reshape(np.sum(sums), value_shape)
    if value_shape in ((2,), (1, 2)):
        return np.reshape(np.sum(sums, axis=0), value_shape)
    return np.reshape(np.sum(sums, axis=1, keepdims=True), value_shape)  # (ndim, 1)


def _check_mode(params: dict[str, Any], ndims: dict[str, int | None]) -> dict[str, Any]:
    mode = params.get("mode")
    if mode not in MODES:
        raise ValueError(
            f"np.pad(..., mode={mode!r}) has no derivative rule in srcgrad; the modes that "
            f"differentiate are {', '.join(MODES)} (pad with one of them, or compute the "
            "padded values with np.concatenate)")
    return params


defrule("zeros_shaped", zeros_shaped, inputs=("like",), params=("shape",), kind=NONDIFF,
        form="shape, like")
defrule("pad_adjoint", pad_adjoint, inputs=("c",), params=("shape", "pad_width", "mode"),
        kind=LINEAR, form="c, shape, pad_width, mode='constant'",
        view=True,  # mode='constant': a slice of c
        vjp={"c": lambda g, pad_width, mode: pad(g, pad_width, mode)})
defrule("pad_value_adjoint", pad_value_adjoint, inputs=("c",),
        params=("shape", "pad_width", "value_shape", "mode"), kind=LINEAR,
        form="c, shape, pad_width, value_shape, mode='constant'",
        vjp={"c": lambda g, shape, pad_width, mode: pad(zeros_shaped(shape, g), pad_width,
                                                        mode, constant_values=g)})
defrule("pad", pad, inputs=("array", "constant_values"), params=("pad_width", "mode"),
        kind=LINEAR, form="array, pad_width, mode='constant', *, constant_values=0",
        aliases=(np.pad,), resolve=_check_mode,
        vjp={"array": lambda g, array_shape, pad_width, mode:
             pad_adjoint(g, array_shape, pad_width, mode),
             "constant_values": lambda g, array_shape, constant_values_shape,
             constant_values_dtype, pad_width, mode: astype(pad_value_adjoint(
                 g, array_shape, pad_width, constant_values_shape, mode),
                 constant_values_dtype)})
