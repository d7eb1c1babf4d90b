"""Helper primitives that compute a result's shape from its inputs' shapes, without the
values: what the compiler's ``shapes_without_values`` pass emits for a value the
derivative code reads only for its shape (a loss's own last operations, whose value
``sg.grad`` never returns).

- ``broadcast_shape(a, b)``: the shape NumPy broadcasting gives two shapes;
- ``reduced_shape(shape, axis, keepdims)``: the shape of a reduction's result.

Both take and return tuples (NONDIFF: shapes carry no derivative).
"""

from __future__ import annotations

import numpy as np

from .helpers import reduced_shape
from .registry import NONDIFF, defrule

Shape = tuple[int, ...]


def broadcast_shape(a: Shape, b: Shape) -> Shape:
    """``np.broadcast_shapes(a, b)``; ``a`` itself when they are equal (per call)."""
    if a == b:
        return a
    if type(a) is tuple and type(b) is tuple:
        # by hand: np.broadcast_shapes builds broadcast objects, 1.7 us (this runs per call)
        n = len(a) - len(b)
        left, right = ((1,) * -n + a, b) if n < 0 else (a, (1,) * n + b)
        out = []
        for x, y in zip(left, right):
            if x == y or y == 1:
                out.append(x)
            elif x == 1:
                out.append(y)
            else:
                return np.broadcast_shapes(a, b)  # (raises NumPy's own error)
        return tuple(out)
    return np.broadcast_shapes(a, b)


defrule("broadcast_shape", broadcast_shape, inputs=(), params=("a", "b"), kind=NONDIFF)
defrule("reduced_shape", reduced_shape, inputs=(), params=("shape", "axis", "keepdims"),
        kind=NONDIFF, form="shape, axis=None, keepdims=False")
