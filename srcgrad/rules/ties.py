"""``np.maximum``/``np.minimum``'s adjoint as a mask: where the larger input was taken.

A tie ``x == y`` shares the gradient half and half (PyTorch; relu written
``np.maximum(h, 0)`` has slope 1/2 at 0). Written as one expression,
``np.where(x > y, g, np.where(x == y, g / 2, 0))`` makes five passes over the batch
(two comparisons, a halving, two selections) though ties almost never occur. Here
``larger_picks(x, y)`` is the boolean mask ``x > y`` when nothing ties (one more
comparison finds out) and the weights 1 / 0.5 / 0 otherwise; the VJP is then
``picked(g, larger_picks(x, y), (), True)``: one ``np.where`` for a mask, and the same
numbers as the one expression (``g * 0.5`` is ``g / 2`` exactly; an infinite ``g`` still
gives 0 where the other input was taken). ``picked`` with ``axis=()`` reduces nothing, so
its own VJP is itself (the rule of :mod:`.reductions`). Imports only rules modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching, foreign
from .registry import NONDIFF, defrule


@dispatching
def larger_picks(x: Any, y: Any) -> Any:
    """Where ``np.maximum(x, y)`` takes ``x``: the mask ``x > y`` without ties, else the
    weights ``1`` (``x > y``), ``0.5`` (``x == y``), ``0`` (shaped as ``x`` and ``y``
    broadcast)."""
    above = np.asarray(np.greater(x, y)) if not foreign(x) and not foreign(y) else None
    if above is not None:
        ties = np.equal(x, y)
        if not ties.any():  # (a value branch: ndarrays only, never a lazy array)
            return above
        return above + 0.5 * ties
    # a Dask/CuPy array: the weights, no branch on values (bool() would compute them)
    x = as_array(x)
    return np.where(x > y, 1.0, np.where(x == y, 0.5, 0.0))


defrule("larger_picks", larger_picks, inputs=("x", "y"), kind=NONDIFF)
