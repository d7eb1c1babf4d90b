"""``np.pad`` in its copying modes: ``constant`` (with ``constant_values``), ``edge``,
``reflect``, ``symmetric``, ``wrap``; pad widths in every form NumPy takes (an int, a
pair, one pair per axis).

Each output element is an input element or a constant, so ``pad`` is affine in the array:
the VJP is ``pad_adjoint(g, array_shape, pad_width, mode)``, which for ``constant`` is
the slice that holds the array and for the other modes adds every copy back onto the
element it came from (a scatter-add of the padded regions). ``pad_adjoint`` is linear and
its own adjoint is ``pad`` with zeros, so second order comes from the table. Forward mode
pads the tangent with zeros (``constant_values`` is a constant: a differentiated value
there is refused by the engine's check of a rule's constant slots). Other modes
(``maximum``, ``mean``, ``linear_ramp``, a function, ...) are refused when the call is
bound, naming the modes that differentiate.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import LINEAR, defrule

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
    c = np.asarray(c)
    widths = _widths(pad_width, len(shape))
    if mode == "constant":
        return c[tuple(slice(int(b), int(b) + n) for (b, _), n in zip(widths, shape))]
    size = math.prod(shape)
    source = np.pad(np.arange(size).reshape(shape), widths, mode)  # where each copy came from
    summed = np.bincount(source.ravel(), weights=c.ravel(), minlength=size)
    return np.reshape(summed.astype(c.dtype, copy=False), shape)


def _check_mode(params: dict[str, Any], ndims: dict[str, int | None]) -> dict[str, Any]:
    mode = params.get("mode")
    if mode not in MODES:
        raise ValueError(
            f"np.pad(..., mode={mode!r}) has no derivative rule in srcgrad; the modes that "
            f"differentiate are {', '.join(MODES)} (pad with one of them, or compute the "
            "padded values with np.concatenate)")
    return params


defrule("pad_adjoint", pad_adjoint, inputs=("c",), params=("shape", "pad_width", "mode"),
        kind=LINEAR, form="c, shape, pad_width, mode='constant'",
        vjp={"c": lambda g, pad_width, mode: pad(g, pad_width, mode)})
defrule("pad", pad, inputs=("array",), params=("pad_width", "mode", "constant_values"),
        form="array, pad_width, mode='constant', *, constant_values=0", aliases=(np.pad,),
        resolve=_check_mode,
        vjp={"array": lambda g, array_shape, pad_width, mode:
             pad_adjoint(g, array_shape, pad_width, mode)},
        jvp={"array": lambda t, pad_width, mode: pad(t, pad_width, mode)})
