"""``np.maximum``/``np.minimum``'s adjoint as a mask: where the larger input was taken.

A tie ``x == y`` shares the gradient half and half (PyTorch; relu written
``np.maximum(h, 0)`` has slope 1/2 at 0). Written as one expression,
``np.where(x > y, g, np.where(x == y, g / 2, 0))`` makes five passes over the batch (two
comparisons, a halving, two selections) though ties almost never occur. Here the adjoint
is two primitives:

- ``larger_picks(x, y)`` (zero derivative): the boolean mask ``x > y`` when nothing ties
  (one more comparison finds out), else the weights 1 / 0.5 / 0;
- ``taken(c, w)``: ``c`` where the weights ``w`` are not 0, times ``w`` (for a mask
  the primitive :func:`.masks.kept`, ``np.where(w, c, 0)`` as a product). It is
  elementwise and linear in ``c``, and broadcasts: in forward mode ``c`` is a tangent
  that may be smaller than the weights (a scalar ``w`` in ``np.maximum(w, u)``), and the
  engine sums its cotangent back to ``c``'s own shape as for any broadcasting elementwise
  rule. Its input is not named ``g``, so no derivative formula confuses it with the
  cotangent.

``larger_picks_array``/``taken_array`` are the same where the first input is known to be
a float ndarray (the rule's ``on_arrays``, which emitted code calls then): no dispatch, no
type tests but the mask's dtype.

The numbers equal the written-out rule's: ``c * 0.5`` is ``c / 2`` exactly, and an
infinite ``c`` still gives 0 where the other input was taken (a selection, never
``inf * 0``). Imports only rules modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching, foreign
from .masks import kept, kept_array
from .registry import ELEMENTWISE, NONDIFF, defrule

_PLAIN = (np.ndarray, float, int)
_kept = kept.__wrapped__  # type: ignore[attr-defined]


@dispatching
def larger_picks(x: Any, y: Any) -> Any:
    """Where ``np.maximum(x, y)`` takes ``x``: the mask ``x > y`` without ties, else the
    weights ``1`` (``x > y``), ``0.5`` (``x == y``), ``0`` (shaped as ``x`` and ``y``
    broadcast)."""
    # (an ndarray against a number or an ndarray, the usual call, tested first: this runs
    # per maximum's adjoint, per call, often on small arrays)
    if (type(x) is np.ndarray and type(y) in _PLAIN) or (not foreign(x) and not foreign(y)):
        ties = np.equal(x, y)
        # (a value branch: ndarrays only; count_nonzero of a mask is cheaper than any())
        if not np.count_nonzero(ties):
            return np.asarray(np.greater(x, y))
        return np.where(ties, 0.5, np.greater(x, y))
    # a Dask/CuPy array: the weights, no branch on values (bool() would compute them)
    x = as_array(x)
    return np.where(x > y, 1.0, np.where(x == y, 0.5, 0.0))


@dispatching
def taken(c: Any, w: Any) -> Any:
    """``c`` weighted by ``w`` (a mask or 1 / 0.5 / 0 weights), 0 where ``w`` is 0 even
    for an infinite ``c``; ``c``'s dtype, broadcast against ``w``."""
    if type(w) is not np.ndarray or w.dtype.kind != "b":  # (a mask: no conversion)
        w = as_array(w)
    if w.dtype.kind == "b":
        # (np.where's numbers, a product's speed on large arrays; its implementation
        # itself: the arguments already passed this primitive's dispatch)
        return _kept(c, w)
    # (the weights are float64; the cotangent keeps its own dtype)
    return (np.where(w != 0, c, 0) * w).astype(np.result_type(c), copy=False)


def larger_picks_array(x: np.ndarray, y: Any) -> np.ndarray:
    """:func:`larger_picks` where ``x`` is known to be a float ndarray of at least one axis
    and ``y`` an ndarray or a number (the compiler's spelling then: no dispatch, and the
    comparisons of an ndarray are ndarrays already)."""
    ties = np.equal(x, y)
    if not np.count_nonzero(ties):
        return np.greater(x, y)  # type: ignore[no-any-return]
    return np.where(ties, 0.5, np.greater(x, y))


def taken_array(c: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`taken` where ``c`` is known to be a float ndarray and ``w`` an ndarray."""
    if w.dtype.kind == "b":  # (a mask: np.where's numbers, bits on a large array)
        return kept_array(c, w)
    return taken.__wrapped__(c, w)  # type: ignore[attr-defined, no-any-return]


# (broadcasts: its mask or weights have x's and y's broadcast shape, as a comparison's)
defrule("larger_picks", larger_picks, inputs=("x", "y"), kind=NONDIFF, broadcasts=True,
        on_arrays=larger_picks_array)
# diagonal and symmetric: its VJP is itself, and forward mode reuses it with the tangent
defrule("taken", taken, inputs=("c", "w"), kind=ELEMENTWISE, broadcasts=True,
        on_arrays=taken_array, vjp={"c": lambda g, w: taken(g, w)})
