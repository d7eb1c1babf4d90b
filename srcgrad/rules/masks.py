"""A value kept where a boolean mask holds, zero elsewhere: the adjoint of a selection.

``np.where``'s adjoint, ``np.clip``'s and ``np.maximum``'s (:mod:`.ties`) all pass the
cotangent through where a mask holds and send 0 elsewhere; a relu written
``np.where(z > 0, z, 0.0)`` is the same selection in the forward sweep
(``compiler/passes/selections.py``). ``np.where(mask, g, 0)`` says it exactly (an infinite
``g`` gives 0 where the mask is false, never ``inf * 0``), but NumPy's ``where`` branches
per element: on a mask of random signs (a relu over a batch) it runs at a few nanoseconds
per element, ten to twenty times ``g * mask`` (a 512x256 float32 relu: about 600 us
against 25 us). So on large float arrays the two primitives here select bits instead: the
mask as integers of the float's width, every bit set where it holds (``-1``) and none
elsewhere, and-ed with the float's bits. That is ``np.where``'s result bit for bit for
every value (``inf``, NaN, ``-0.0``; no product, so no ``inf * 0``), in three branch-free
passes (the cast of the mask, its negation, the ``and`` into the same buffer): as fast as
the ``g *= mask`` a person writes (the bool operand of a product is cast too), with no test
of ``g`` first. Small arrays (where ``np.where`` costs less), a mask that is not boolean
(``np.where``'s condition may be any truthy array), other float types and arrays of other
libraries take ``np.where``.

- ``kept(c, mask)``: ``np.where(mask, c, 0)``;
- ``dropped(c, mask)``: ``np.where(mask, 0, c)``.

``kept_array``/``dropped_array`` are the same for a float ndarray ``c`` and an ndarray
``mask``, without the dispatch and type tests: emitted code calls them where the compiler
knows those types (the rule's ``on_arrays``).

Both are elementwise and linear in ``c`` and broadcast like ``np.where``; their VJP is
themselves (forward mode reuses it with the tangent). Imports only rules modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import ELEMENTWISE, defrule

# From this many elements of 4 bytes or less (of 8 bytes) on, the selection of bits beats
# np.where (measured on random masks: about even near 1,500 float32 and 6,000 float64)
BITS_FROM = 2048
BITS_FROM_WIDE = 8192
# the integers of each native float's width (a byte-swapped float takes np.where)
_BITS = {np.dtype(np.float16): np.dtype(np.int16), np.dtype(np.float32): np.dtype(np.int32),
         np.dtype(np.float64): np.dtype(np.int64)}


def _bits_pay(c: np.ndarray, mask: Any) -> bool:
    # (tests written out: this runs per selection's adjoint, per call)
    return (type(mask) is np.ndarray and mask.dtype.kind == "b" and c.dtype in _BITS
            and max(c.size, mask.size) >= (BITS_FROM if c.itemsize <= 4 else BITS_FROM_WIDE))


def _selected_bits(c: np.ndarray, mask: np.ndarray, keep: bool) -> np.ndarray:
    """``np.where(mask, c, 0)`` (``keep``) or ``np.where(mask, 0, c)`` for a float ndarray
    ``c`` and a boolean ``mask``: ``c``'s bits and-ed with a mask of all or no bits."""
    bits = _BITS[c.dtype]
    w = mask.astype(bits)  # 1 where the mask holds, 0 elsewhere
    if keep:
        np.negative(w, out=w)  # -1 (every bit set) where it holds
    else:
        np.subtract(w, 1, out=w)  # -1 where it does not
    if w.shape == c.shape:  # (the usual call: the result into the mask's new buffer)
        return np.bitwise_and(c.view(bits), w, out=w).view(c.dtype)  # type: ignore[no-any-return]
    return np.bitwise_and(c.view(bits), w).view(c.dtype)  # type: ignore[no-any-return]


@dispatching
def kept(c: Any, mask: Any) -> Any:
    """``c`` where ``mask`` holds, 0 elsewhere (``np.where(mask, c, 0)``'s numbers)."""
    if type(c) is np.ndarray and c.dtype.kind == "f":
        if _bits_pay(c, mask):
            return _selected_bits(c, mask, True)
        return np.where(mask, c, 0.0)  # (a float 0: no int conversion; c's dtype kept)
    return np.where(mask, c, 0)


@dispatching
def dropped(c: Any, mask: Any) -> Any:
    """0 where ``mask`` holds, ``c`` elsewhere (``np.where(mask, 0, c)``'s numbers)."""
    if type(c) is np.ndarray and c.dtype.kind == "f":
        if _bits_pay(c, mask):
            return _selected_bits(c, mask, False)
        return np.where(mask, 0.0, c)
    return np.where(mask, 0, c)


def kept_array(c: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """:func:`kept` where ``c`` is known to be a float ndarray and ``mask`` an ndarray (the
    compiler's spelling then): below the size where bits pay, ``np.where`` with no test but
    the size (the dispatching wrapper and its type tests cost half of ``np.where`` itself on
    a few elements); above it, :func:`kept`'s tests written out."""
    if mask.size < BITS_FROM:
        return np.where(mask, c, 0.0)
    if mask.dtype.kind == "b" and c.dtype in _BITS and (
            c.itemsize <= 4 or max(c.size, mask.size) >= BITS_FROM_WIDE):
        return _selected_bits(c, mask, True)
    return np.where(mask, c, 0.0)


def dropped_array(c: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """:func:`dropped` where ``c`` is known to be a float ndarray and ``mask`` an ndarray."""
    if mask.size < BITS_FROM:
        return np.where(mask, 0.0, c)
    if mask.dtype.kind == "b" and c.dtype in _BITS and (
            c.itemsize <= 4 or max(c.size, mask.size) >= BITS_FROM_WIDE):
        return _selected_bits(c, mask, False)
    return np.where(mask, 0.0, c)


# (the input is not named ``g``: no derivative formula confuses it with the cotangent)
defrule("kept", kept, inputs=("c", "mask"), kind=ELEMENTWISE, broadcasts=True,
        on_arrays=kept_array, vjp={"c": lambda g, mask: kept(g, mask)})
defrule("dropped", dropped, inputs=("c", "mask"), kind=ELEMENTWISE, broadcasts=True,
        on_arrays=dropped_array, vjp={"c": lambda g, mask: dropped(g, mask)})
