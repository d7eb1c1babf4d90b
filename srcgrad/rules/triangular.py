"""Helper primitives the matrix-decomposition rules are written with (:mod:`.decompositions`).

A rule body must only call functions that have rules, so that it differentiates again
(second order). The decompositions' textbook formulas need two small pieces NumPy does
not spell as one call, each a primitive here with its own rule:

=============  =====================================================================
lower          ``tril(x)`` with the diagonal scaled by ``diagonal`` (1: ``tril``, 0.5:
               Murray's ``Phi``, 0: strictly lower). Linear and self-adjoint (a mask).
inverse_gaps   ``F[..., i, j] = 1 / (w_j - w_i)`` off the diagonal, 0 on it: the
               eigen/singular-vector derivatives' divided differences. Where two
               values are equal the entry is ``inf`` (NumPy warns "divide by zero"):
               the vectors have no derivative there, and the gradient is ``inf``/``nan``
               as PyTorch's is, never a silently finite wrong number.
=============  =====================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .foreign import in_library_of
from .registry import LINEAR, defrule


@dispatching
def lower(x: Any, diagonal: float = 1.0) -> Any:
    """The lower triangle of the matrices in ``x`` (last two axes), diagonal times
    ``diagonal``."""
    x = as_array(x)
    rows, cols = x.shape[-2], x.shape[-1]
    mask = np.tri(rows, cols, dtype=x.dtype)
    if diagonal != 1.0:
        mask = mask - (1.0 - diagonal) * np.eye(rows, cols, dtype=x.dtype)
    return x * in_library_of(mask, x)  # (a CuPy x refuses a host mask)


@dispatching
def inverse_gaps(w: Any) -> Any:
    """``1 / (w[..., j] - w[..., i])`` at ``[..., i, j]``, zero on the diagonal."""
    w = as_array(w)
    gaps = w[..., None, :] - w[..., :, None]
    off = in_library_of(~np.eye(w.shape[-1], dtype=bool), w)
    # 1 on the diagonal before dividing: only a tie off the diagonal divides by zero
    return np.where(off, 1.0 / np.where(off, gaps, 1.0), 0.0).astype(w.dtype, copy=False)


def _gaps_vjp(g: Any, out: Any) -> Any:
    # dF_ij = -F_ij^2 (dw_j - dw_i): w_j collects -sum_i, w_i collects +sum_j
    q = g * out * out
    return np.sum(q, axis=-1) - np.sum(q, axis=-2)


def _gaps_jvp(t: Any, out: Any) -> Any:
    return -(out * out) * (np.expand_dims(t, -2) - np.expand_dims(t, -1))


defrule("lower", lower, inputs=("x",), params=("diagonal",), kind=LINEAR,
        form="x, diagonal=1.0", vjp={"x": lambda g, diagonal: lower(g, diagonal)})
defrule("inverse_gaps", inverse_gaps, inputs=("w",),
        vjp={"w": _gaps_vjp}, jvp={"w": _gaps_jvp})
