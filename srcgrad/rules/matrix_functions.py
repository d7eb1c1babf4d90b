"""More linear algebra: ``slogdet``'s items, ``pinv``, ``matrix_power``, ``multi_dot``.

Batched over leading axes where NumPy is (``mT(a)`` = ``swapaxes(a, -1, -2)``):

=================  ========================================================================
slogdet_sign       zero derivative (the sign is locally constant on nonsingular ``x``)
slogdet_logabsdet  VJP ``g mT(inv(x))``; JVP ``trace(solve(x, t))`` (nonsingular ``x``)
pinv               (Golub & Pereyra 1973) ``P = pinv(A)``: ``dP = -P t P + P P^T t^T (I - A
                   P) + (I - P A) t^T P^T P``; the VJP is its adjoint. Valid where the rank
                   is constant near ``A``, in practice full rank (every singular value above
                   the cutoff); at a rank change ``pinv`` is discontinuous and has none.
matrix_power       ``n > 0``: ``sum_k A^k t A^(n-1-k)`` (and the adjoint with ``mT``);
                   ``n = 0``: zero; ``n < 0``: through ``B = inv(A)``, ``dB = -B t B``.
multi_dot          multilinear (forward: one array at a time replaced by its tangent);
                   VJP of array ``i``: ``left^T g right^T`` with ``left``/``right`` the
                   products of the arrays before/after it, by matmul's adjoint primitives
                   (a 1-d first array a row, a 1-d last one a column, as NumPy reads them).
=================  ========================================================================

``slogdet_sign``/``slogdet_logabsdet`` are the items of ``np.linalg.slogdet``'s result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .dispatch import dispatching
from .products import matmul_adjoint_x, matmul_adjoint_y
from .registry import BILINEAR, NONDIFF, defrule
from .torch_names import matrix_power_node

Shape = tuple[int, ...]


def _mT(a: Any) -> Any:
    return np.swapaxes(a, -1, -2)


# --- slogdet ---------------------------------------------------------------------------------
@dispatching
def slogdet_sign(x: Any) -> Any:
    """``np.linalg.slogdet(x).sign``."""
    return np.linalg.slogdet(x)[0]


@dispatching
def slogdet_logabsdet(x: Any) -> Any:
    """``np.linalg.slogdet(x).logabsdet``."""
    return np.linalg.slogdet(x)[1]


defrule("slogdet_sign", slogdet_sign, inputs=("x",), kind=NONDIFF,
        pytorch=("sg.linalg.slogdet",))
defrule("slogdet_logabsdet", slogdet_logabsdet, inputs=("x",),
        vjp={"x": lambda g, x: np.expand_dims(g, (-2, -1)) * _mT(np.linalg.inv(x))},
        jvp={"x": lambda t, x: np.trace(np.linalg.solve(x, t), axis1=-2, axis2=-1)},
        torch=("LinalgSlogdetBackward0", 1), pytorch=("sg.linalg.slogdet",))


# --- pseudo-inverse ------------------------------------------------------------------------------
def _pinv_vjp(g: Any, x: Any, out: Any) -> Any:
    gt = _mT(g)
    left = np.matmul(np.matmul(gt, out), _mT(out))  # g^T P P^T, then (I - A P) on the left
    right = np.matmul(_mT(out), np.matmul(out, gt))  # P^T P g^T, then (I - P A) on the right
    return (-np.matmul(_mT(out), np.matmul(g, _mT(out)))
            + left - np.matmul(x, np.matmul(out, left))
            + right - np.matmul(np.matmul(right, out), x))


def _pinv_jvp(t: Any, x: Any, out: Any) -> Any:
    tt = _mT(t)
    left = np.matmul(np.matmul(out, _mT(out)), tt)  # P P^T t^T, then (I - A P) on the right
    right = np.matmul(tt, np.matmul(_mT(out), out))  # t^T P^T P, then (I - P A) on the left
    return (-np.matmul(out, np.matmul(t, out))
            + left - np.matmul(np.matmul(left, x), out)
            + right - np.matmul(out, np.matmul(x, right)))


defrule("pinv", np.linalg.pinv, inputs=("x",), params=("rcond", "hermitian"),
        form="x, rcond=None, hermitian=False", vjp={"x": _pinv_vjp}, jvp={"x": _pinv_jvp},
        torch=("LinalgPinvBackward0", 1), pytorch=("sg.linalg.pinv",),
        kinks="full rank assumed: where the rank changes pinv is discontinuous (no derivative)")


# --- matrix_power -----------------------------------------------------------------------------
def _powers(x: Any, n: int) -> list[Any]:
    """``[None, x, x @ x, ...]`` up to ``x^(n-1)`` (index 0 stands for the identity)."""
    found: list[Any] = [None, x]
    while len(found) < n:
        found.append(np.matmul(found[-1], x))
    return found


def _power_sum(x: Any, t: Any, n: int, transpose: bool) -> Any:
    """``sum_k P_k t P_(n-1-k)`` with ``P_k = x^k`` (``mT(x)^k`` and the order reversed
    when ``transpose``: the adjoint)."""
    powers = _powers(x, n)
    total = None
    for k in range(n):
        before, after = powers[k], powers[n - 1 - k]
        if transpose:
            before, after = after, before
        term = t
        if before is not None:
            term = np.matmul(_mT(before) if transpose else before, term)
        if after is not None:
            term = np.matmul(term, _mT(after) if transpose else after)
        total = term if total is None else total + term
    return total


def _matrix_power_vjp(g: Any, x: Any, n: int) -> Any:
    if n == 0:
        return np.zeros_like(x)
    if n > 0:
        return _power_sum(x, g, n, transpose=True)
    b = np.linalg.inv(x)
    g_b = _power_sum(b, g, -n, transpose=True)
    return -np.matmul(_mT(b), np.matmul(g_b, _mT(b)))


def _matrix_power_jvp(t: Any, x: Any, n: int) -> Any:
    if n == 0:
        return np.zeros_like(x)
    if n > 0:
        return _power_sum(x, t, n, transpose=False)
    b = np.linalg.inv(x)
    return _power_sum(b, -np.matmul(b, np.matmul(t, b)), -n, transpose=False)


defrule("matrix_power", np.linalg.matrix_power, inputs=("x",), params=("n",),
        vjp={"x": _matrix_power_vjp}, jvp={"x": _matrix_power_jvp},
        torch=matrix_power_node, pytorch=("sg.linalg.matrix_power",),
        view=True)  # NumPy returns ``x`` itself for n = 1


# --- multi_dot ----------------------------------------------------------------------------------
def _chain(matrices: Sequence[Any]) -> Any:
    if not matrices:
        return None
    if len(matrices) == 1:
        return matrices[0]
    return np.linalg.multi_dot(list(matrices))


def _multi_dot_vjp(g: Any, arrays: Sequence[Any], arrays_shape: tuple[Shape, ...],
                   i: int) -> Any:
    # out = left @ (arrays[i] @ right) with matmul's reading of 1-d ends (which is
    # multi_dot's); matmul's adjoint primitives handle those ends, so no branch on ranks
    left, right = _chain(arrays[:i]), _chain(arrays[i + 1:])
    if left is None:
        return matmul_adjoint_x(g, right, arrays_shape[i])
    if right is None:
        return matmul_adjoint_y(left, g, arrays_shape[i])
    inner_shape = np.shape(np.matmul(arrays[i], right))
    return matmul_adjoint_x(matmul_adjoint_y(left, g, inner_shape), right, arrays_shape[i])


defrule("multi_dot", np.linalg.multi_dot, inputs=("arrays",), variadic="arrays",
        kind=BILINEAR, vjp={"arrays": _multi_dot_vjp}, torch="ViewBackward0",
        pytorch=("sg.linalg.multi_dot",))
