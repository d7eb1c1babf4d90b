"""A cotangent kept where a boolean mask holds, zero elsewhere: the adjoint of a selection.

``np.where``'s adjoint, ``np.clip``'s and ``np.maximum``'s (:mod:`.ties`) all pass the
cotangent through where a mask holds and send 0 elsewhere. ``np.where(mask, g, 0)`` says
it exactly (an infinite ``g`` gives 0 where the mask is false, never ``inf * 0``), but
NumPy's ``where`` branches per element: on a mask of random signs (a relu over a batch)
it runs at a few nanoseconds per element, ten to twenty times ``g * mask`` (the adjoint of
a 512x256 float32 relu: about 500 us against 25 us). So on large float arrays the two
primitives here multiply, and look for a NaN in the product (one cheap pass): a NaN can
only come from a non-finite ``g`` (``inf * 0``, or a NaN in ``g``), and then they
recompute with ``np.where``, so the numbers are always ``np.where``'s. Small arrays, a
mask that is not boolean (``np.where``'s condition may be any truthy array) and arrays of
other libraries take ``np.where`` at once.

- ``kept(c, mask)``: ``np.where(mask, c, 0)``;
- ``dropped(c, mask)``: ``np.where(mask, 0, c)``.

Both are elementwise and linear in ``c`` and broadcast like ``np.where``; their VJP is
themselves (forward mode reuses it with the tangent). Imports only rules modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import ELEMENTWISE, defrule

# Below this many elements np.where costs no more than the product and its NaN check
# (measured: about even near 2,000 elements, float32 and float64).
PRODUCT_FROM = 4096


@dispatching
def kept(c: Any, mask: Any) -> Any:
    """``c`` where ``mask`` holds, 0 elsewhere (``np.where(mask, c, 0)``'s numbers)."""
    # (tests written out: this runs per selection's adjoint, per call, often on small arrays)
    if type(c) is np.ndarray and c.dtype.kind in "fc":
        if type(mask) is np.ndarray and mask.size >= PRODUCT_FROM and mask.dtype == bool:
            with np.errstate(invalid="ignore"):  # (inf * 0: then np.where below)
                product = np.multiply(c, mask)
            if not np.isnan(product).any():
                return product
        return np.where(mask, c, 0.0)  # (a float 0: no int conversion; c's dtype kept)
    return np.where(mask, c, 0)


@dispatching
def dropped(c: Any, mask: Any) -> Any:
    """0 where ``mask`` holds, ``c`` elsewhere (``np.where(mask, 0, c)``'s numbers)."""
    if type(c) is np.ndarray and c.dtype.kind in "fc":
        if type(mask) is np.ndarray and mask.size >= PRODUCT_FROM and mask.dtype == bool:
            with np.errstate(invalid="ignore"):
                product = np.multiply(c, np.logical_not(mask))
            if not np.isnan(product).any():
                return product
        return np.where(mask, 0.0, c)
    return np.where(mask, 0, c)


# (the input is not named ``g``: no derivative formula confuses it with the cotangent)
defrule("kept", kept, inputs=("c", "mask"), kind=ELEMENTWISE, broadcasts=True,
        vjp={"c": lambda g, mask: kept(g, mask)})
defrule("dropped", dropped, inputs=("c", "mask"), kind=ELEMENTWISE, broadcasts=True,
        vjp={"c": lambda g, mask: dropped(g, mask)})
