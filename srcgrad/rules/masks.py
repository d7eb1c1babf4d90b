"""A cotangent kept where a boolean mask holds, zero elsewhere: the adjoint of a selection.

``np.where``'s adjoint, ``np.clip``'s and ``np.maximum``'s (:mod:`.ties`) all pass the
cotangent through where a mask holds and send 0 elsewhere. ``np.where(mask, g, 0)`` says
it exactly (an infinite ``g`` gives 0 where the mask is false, never ``inf * 0``), but
NumPy's ``where`` branches per element: on a mask of random signs (a relu over a batch)
it runs at a few nanoseconds per element, ten to twenty times ``g * mask`` (the adjoint of
a 512x256 float32 relu: about 500 us against 25 us). So on large real float arrays the
two primitives here multiply, after one cheap check that ``g`` is finite
(``np.isfinite(g).all()``): ``g * mask`` then has ``np.where``'s numbers, and a non-finite
``g`` (where ``inf * 0`` would be NaN) takes ``np.where``. Small arrays, a mask that is
not boolean (``np.where``'s condition may be any truthy array) and arrays of other
libraries take ``np.where`` at once.

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

# From this many elements of 4 bytes (16 of 8) on, the product and its check beat np.where
# (measured on random masks: about even near 2,000 float32 and 16,000 float64 elements)
PRODUCT_FROM = 4096
PRODUCT_FROM_WIDE = 16384


def _product_pays(c: Any, mask: Any) -> bool:
    # (tests written out: this runs per selection's adjoint, per call)
    return (type(mask) is np.ndarray and mask.dtype.kind == "b"
            and mask.size >= (PRODUCT_FROM if c.itemsize <= 4 else PRODUCT_FROM_WIDE)
            and np.isfinite(c).all())  # (then c * mask has np.where's numbers, no warning)


@dispatching
def kept(c: Any, mask: Any) -> Any:
    """``c`` where ``mask`` holds, 0 elsewhere (``np.where(mask, c, 0)``'s numbers)."""
    if type(c) is np.ndarray and c.dtype.kind == "f":
        if _product_pays(c, mask):
            return np.multiply(c, mask)
        return np.where(mask, c, 0.0)  # (a float 0: no int conversion; c's dtype kept)
    return np.where(mask, c, 0)


@dispatching
def dropped(c: Any, mask: Any) -> Any:
    """0 where ``mask`` holds, ``c`` elsewhere (``np.where(mask, 0, c)``'s numbers)."""
    if type(c) is np.ndarray and c.dtype.kind == "f":
        if _product_pays(c, mask):
            return np.multiply(c, np.logical_not(mask))
        return np.where(mask, 0.0, c)
    return np.where(mask, 0, c)


def kept_array(c: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """:func:`kept` where ``c`` is known to be a float ndarray and ``mask`` an ndarray (the
    compiler's spelling then): below the product's size, ``np.where`` with no test but the
    size; the dispatching wrapper and its type tests cost half of ``np.where`` itself on a
    few elements."""
    if mask.size < PRODUCT_FROM:
        return np.where(mask, c, 0.0)
    return kept.__wrapped__(c, mask)  # type: ignore[attr-defined, no-any-return]


def dropped_array(c: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """:func:`dropped` where ``c`` is known to be a float ndarray and ``mask`` an ndarray."""
    if mask.size < PRODUCT_FROM:
        return np.where(mask, 0.0, c)
    return dropped.__wrapped__(c, mask)  # type: ignore[attr-defined, no-any-return]


# (the input is not named ``g``: no derivative formula confuses it with the cotangent)
defrule("kept", kept, inputs=("c", "mask"), kind=ELEMENTWISE, broadcasts=True,
        on_arrays=kept_array, vjp={"c": lambda g, mask: kept(g, mask)})
defrule("dropped", dropped, inputs=("c", "mask"), kind=ELEMENTWISE, broadcasts=True,
        on_arrays=dropped_array, vjp={"c": lambda g, mask: dropped(g, mask)})
