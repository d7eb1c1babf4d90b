"""Rearranging elements: ``roll rot90 flipud fliplr rollaxis tril triu diagonal`` and
``np.fft.fftshift``/``ifftshift`` (rolls by half the length: real in, real out).

Each moves, copies or masks elements, so each is ``kind=LINEAR`` (forward mode applies the
op to the tangent) and its VJP is the transpose op, itself a linear rule (so second order
comes from the same table):

==========  ===================================================================
roll        ``roll(g, negated(shift), axis)``
rot90       ``rot90(g, -k, axes)``
flipud      ``flipud(g)``; fliplr: ``fliplr(g)``
fftshift    ``ifftshift(g, axes)``; ifftshift: ``fftshift(g, axes)``
rollaxis    ``transpose(g, inverse_permutation(rollaxis_permutation(...)))``
tril        ``unbroadcast(tril(g, k), x_shape)`` (a 1-d ``x`` is broadcast to rows);
            triu likewise
diagonal    ``diagonal_adjoint(g, x_shape, offset, axis1, axis2)``: ``g`` written on
            that diagonal of zeros (its own adjoint is ``diagonal``)
==========  ===================================================================

``negated`` and ``rollaxis_permutation`` compute from static values only (zero
derivative), as :mod:`.shape`'s ``inverse_permutation`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .helpers import unbroadcast
from .registry import LINEAR, NONDIFF, defrule
from .shape import inverse_permutation

Shape = tuple[int, ...]


@dispatching
def negated(shift: Any) -> Any:
    """``-shift`` for an int or a tuple of ints (``roll``'s inverse shift)."""
    if isinstance(shift, (tuple, list)):
        return tuple(-int(s) for s in shift)
    return -as_array(shift) if np.ndim(shift) else -int(shift)


@dispatching
def rollaxis_permutation(shape: Shape, axis: int, start: int = 0) -> tuple[int, ...]:
    """The axes ``np.rollaxis(x, axis, start)`` transposes ``x`` of ``shape`` by."""
    n = len(tuple(shape))
    axis = int(axis) % n if n else 0
    start = int(start) + n if start < 0 else int(start)
    if axis < start:
        start -= 1  # NumPy's definition: the axis lands before the one at ``start``
    axes = [a for a in range(n) if a != axis]
    axes.insert(start, axis)
    return tuple(axes)


@dispatching
def diagonal_adjoint(c: Any, shape: Shape, offset: int = 0, axis1: int = 0,
                     axis2: int = 1) -> Any:
    """Zeros of ``shape`` with ``c`` (diagonal axis last, as ``np.diagonal`` puts it)
    written on the ``offset`` diagonal of axes ``axis1, axis2``."""
    c = as_array(c)
    z = np.zeros(tuple(shape), dtype=c.dtype)
    moved = np.moveaxis(z, (axis1, axis2), (-2, -1))  # a writable view of z
    n = c.shape[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    moved[..., rows, cols] = c
    return z


defrule("negated", negated, inputs=(), params=("shift",), kind=NONDIFF)
defrule("rollaxis_permutation", rollaxis_permutation, inputs=(),
        params=("shape", "axis", "start"), kind=NONDIFF, form="shape, axis, start=0")
defrule("diagonal_adjoint", diagonal_adjoint, inputs=("c",),
        params=("shape", "offset", "axis1", "axis2"), kind=LINEAR,
        form="c, shape, offset=0, axis1=0, axis2=1",
        vjp={"c": lambda g, offset, axis1, axis2: np.diagonal(g, offset, axis1, axis2)})


def _linear(name: str, impl: Any, params: tuple[str, ...], form: str, vjp: Any,
            **record: Any) -> None:
    # every rule here reads its array as NumPy names it (``a`` or ``m``): the form's first
    # name; ``record``: the rule's other fields (torch=, pytorch=, view=, methods=)
    first = form.split(",")[0].strip()
    defrule(name, impl, inputs=(first,), params=params, kind=LINEAR, form=form,
            vjp={first: vjp}, **record)


_linear("roll", np.roll, ("shift", "axis"), "a, shift, axis=None",
        lambda g, shift, axis: np.roll(g, negated(shift), axis),
        pytorch=("t.roll", "sg.roll"))
# each shift is the other's inverse along the same axes (odd lengths included)
_linear("fftshift", np.fft.fftshift, ("axes",), "x, axes=None",
        lambda g, axes: np.fft.ifftshift(g, axes))
_linear("ifftshift", np.fft.ifftshift, ("axes",), "x, axes=None",
        lambda g, axes: np.fft.fftshift(g, axes))
_linear("rot90", np.rot90, ("k", "axes"), "m, k=1, axes=(0, 1)",
        lambda g, k, axes: np.rot90(g, -k, axes),
        view=True, pytorch=("sg.rot90",))  # NumPy's is a view; sg.rot90 copies, as PyTorch
_linear("flipud", np.flipud, (), "m", lambda g: np.flipud(g),
        torch=("FlipBackward0", 1), view=True, pytorch=("sg.flipud",))
_linear("fliplr", np.fliplr, (), "m", lambda g: np.fliplr(g),
        torch=("FlipBackward0", 1), view=True, pytorch=("sg.fliplr",))
_linear("rollaxis", np.rollaxis, ("axis", "start"), "a, axis, start=0",
        lambda g, a_shape, axis, start: np.transpose(
            g, inverse_permutation(rollaxis_permutation(a_shape, axis, start))),
        torch=("PermuteBackward0", 1), view=True)
_linear("tril", np.tril, ("k",), "m, k=0",
        lambda g, m_shape, k: unbroadcast(np.tril(g, k), m_shape),
        pytorch=("t.tril", "sg.tril"))
_linear("triu", np.triu, ("k",), "m, k=0",
        lambda g, m_shape, k: unbroadcast(np.triu(g, k), m_shape),
        pytorch=("t.triu", "sg.triu"))
_linear("diagonal", np.diagonal, ("offset", "axis1", "axis2"),
        "a, offset=0, axis1=0, axis2=1",
        lambda g, a_shape, offset, axis1, axis2:
        diagonal_adjoint(g, a_shape, offset, axis1, axis2),
        methods=("diagonal",), view=True,  # read-only view; t.diagonal copies here
        pytorch=("t.diagonal", "sg.diagonal"))
