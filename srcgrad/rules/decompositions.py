"""Matrix decompositions: ``cholesky``, ``eigh``/``eigvalsh``, ``svd``/``svdvals``, ``qr``.

Every formula is batched over leading axes (``mT(a)`` = ``swapaxes(a, -1, -2)``,
``sym(a)`` = ``(a + mT(a)) / 2``). A function returning a tuple is one primitive per item
(``eigh_values``, ``eigh_vectors``; ``svd_u``, ``svd_s``, ``svd_vt``; ``qr_q``, ``qr_r``):
an item's derivative recomputes the other items it needs by calling their primitives, so
each body differentiates again, and items a program does not use cost nothing in reverse.

==============  ==========================================================================
cholesky        (Murray 2016) ``Phi(X)`` = ``lower(X, 0.5)``. ``H`` = ``sym(L^-T Phi(L^T
                g) L^-1)``; ``dL`` = ``L Phi(L^-1 S L^-T)`` for a symmetric tangent ``S``.
eigvalsh,       ``H`` = ``V diag(g) V^T``; ``dw`` = ``diag(V^T S V)``. Defined where
eigh_values     eigenvalues repeat too (it does not need the vectors' derivative).
eigh_vectors    (Giles 2008) ``F = inverse_gaps(w)``: ``H`` = ``sym(V (F o V^T g) V^T)``;
                ``dV`` = ``V (F o V^T S V)``. Repeated eigenvalues: no derivative; the
                gradient is ``inf``/``nan`` there (as PyTorch), see :mod:`.triangular`.
(reading)       These read one triangle of ``A``: NumPy factors ``M = tril(A) +
                tril(A, -1)^T`` (``'L'``; ``triu`` for ``'U'``, cholesky ``upper=True``).
                The rules return the derivative of that: VJP ``tril(H) + tril(H^T, -1)``,
                JVP with ``S = tril(t) + tril(t, -1)^T``. PyTorch's spellings
                (``sg.linalg.*``) treat ``A`` as symmetric instead (VJP ``H``, ``S =
                sym(t)``): :mod:`.symmetric_input`.
svdvals, svd_s  VJP ``U diag(g) Vt``; JVP ``diag(U^T t V)`` (thin SVD, simple values)
svd_u, svd_vt   (Townsend 2016) ``F = inverse_gaps(s**2)``, ``S = diag(s)``.
                U: ``U (F o (U^T g - g^T U)) S Vt + (I - U U^T) g S^-1 Vt``;
                Vt: ``U S (F o (Vt g^T - g Vt^T)) Vt + U S^-1 (g - g V Vt)``.
                Thin SVD (``full_matrices=False``, or a square matrix: the full SVD of a
                non-square one is refused when it runs, naming the fix); distinct, nonzero
                singular values (else ``inf``/``nan``, as PyTorch).
qr_q, qr_r      (reduced; ``m >= n``, else refused when it runs; full column rank)
                ``M = g_R R^T - Q^T g_Q``, ``N = triu(M) + triu(M, 1)^T``: VJP
                ``(g_Q + Q N) R^-T``; JVP with ``C = Q^T t R^-1``,
                ``O = lower(C, 0) - mT(lower(C, 0))``: ``dQ = Q O + t R^-1 - Q C``,
                ``dR = (C - O) R``.
==============  ==========================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import defrule
from .triangular import inverse_gaps, lower


def _mT(a: Any) -> Any:
    return np.swapaxes(a, -1, -2)


def sym(a: Any) -> Any:
    return 0.5 * (a + _mT(a))


def _row(v: Any) -> Any:
    """A vector of per-column factors (``s``, ``w``) as a row that scales columns."""
    return np.expand_dims(v, -2)


def _col(v: Any) -> Any:
    """A vector of per-row factors as a column that scales rows."""
    return np.expand_dims(v, -1)


# --- which triangle NumPy reads ---------------------------------------------------------------
# NumPy's symmetric routines see ``M = tril(A) + tril(A, -1)^T`` (``'L'``; ``triu`` for
# ``'U'``). With ``H`` the (symmetric) gradient w.r.t. ``M``, the gradient w.r.t. ``A`` is
# ``tril(H) + tril(H^T, -1)``, and a tangent ``T`` of ``A`` moves ``M`` by
# ``tril(T) + tril(T, -1)^T``. ``'U'`` is ``'L'`` of the transpose. Spelled with ``lower``
# and ``swapaxes`` (rules, batched), so these differentiate again.
def _fold_lower(h: Any) -> Any:
    return lower(h, 1.0) + lower(_mT(h), 0.0)


def _read_lower(t: Any) -> Any:
    return lower(t, 1.0) + _mT(lower(t, 0.0))


def fold_read(h: Any, uplo: str) -> Any:
    """The gradient w.r.t. ``A`` of ``H``, the gradient w.r.t. the matrix NumPy reads."""
    return _fold_lower(h) if uplo == "L" else _mT(_fold_lower(_mT(h)))


def as_read(t: Any, uplo: str) -> Any:
    """The tangent of the matrix NumPy reads, for a tangent ``t`` of ``A``."""
    return _read_lower(t) if uplo == "L" else _mT(_read_lower(_mT(t)))


# --- cholesky -------------------------------------------------------------------------------
def _lower_factor(out: Any, upper: bool) -> Any:
    return _mT(out) if upper else out


def cholesky_vjp_sym(g: Any, out: Any, upper: bool) -> Any:
    """The gradient w.r.t. the symmetric matrix factored (PyTorch's, symmetric)."""
    factor = _lower_factor(out, upper)
    g = _mT(g) if upper else g
    inverse = np.linalg.inv(factor)
    phi = lower(np.matmul(_mT(factor), g), 0.5)
    return sym(np.matmul(_mT(inverse), np.matmul(phi, inverse)))


def cholesky_jvp_sym(t: Any, out: Any, upper: bool) -> Any:
    """The tangent of the factor along the symmetric part of ``t`` (PyTorch's)."""
    factor = _lower_factor(out, upper)
    inverse = np.linalg.inv(factor)
    d = np.matmul(factor, lower(np.matmul(inverse, np.matmul(sym(t), _mT(inverse))), 0.5))
    return _mT(d) if upper else d


def _uplo(upper: bool) -> str:
    return "U" if upper else "L"  # NumPy's cholesky reads the triangle of its factor


defrule("cholesky", np.linalg.cholesky, inputs=("x",), params=("upper",),
        form="x, /, *, upper=False",
        vjp={"x": lambda g, out, upper: fold_read(cholesky_vjp_sym(g, out, upper),
                                                  _uplo(upper))},
        jvp={"x": lambda t, out, upper: cholesky_jvp_sym(as_read(t, _uplo(upper)), out,
                                                         upper)},
        torch=("LinalgCholeskyExBackward0", 1),
        kinks="reads one triangle (upper=True: the upper), as NumPy computes: the gradient "
              "is zero on the other; needs positive definite")


# --- symmetric eigendecomposition -------------------------------------------------------------
@dispatching
def eigh_values(x: Any, UPLO: str = "L") -> Any:
    """``np.linalg.eigh(x, UPLO)[0]`` (exactly eigh's values, which ``eigvalsh`` may
    differ from in the last bits)."""
    return np.linalg.eigh(x, UPLO)[0]


@dispatching
def eigh_vectors(x: Any, UPLO: str = "L") -> Any:
    """``np.linalg.eigh(x, UPLO)[1]``: the eigenvectors as columns."""
    return np.linalg.eigh(x, UPLO)[1]


# The formulas on the symmetric matrix factored, given its values/vectors (each spelling
# recomputes them with its own primitives, so its second derivative reads ``A`` its way):
# ``H`` for a cotangent, the tangent of the item for a symmetric tangent ``s``.
def values_vjp_sym(g: Any, v: Any) -> Any:
    return np.matmul(v * _row(g), _mT(v))


def values_jvp_sym(s: Any, v: Any) -> Any:
    return np.sum(v * np.matmul(s, v), axis=-2)


def vectors_vjp_sym(g: Any, w: Any, out: Any) -> Any:
    inner = inverse_gaps(w) * np.matmul(_mT(out), g)
    return sym(np.matmul(out, np.matmul(inner, _mT(out))))


def vectors_jvp_sym(s: Any, w: Any, out: Any) -> Any:
    return np.matmul(out, inverse_gaps(w) * np.matmul(_mT(out), np.matmul(s, out)))


def _eigenvalues_vjp(g: Any, x: Any, UPLO: str) -> Any:
    return fold_read(values_vjp_sym(g, eigh_vectors(x, UPLO)), UPLO)


def _eigenvalues_jvp(t: Any, x: Any, UPLO: str) -> Any:
    return values_jvp_sym(as_read(t, UPLO), eigh_vectors(x, UPLO))


def _eigenvectors_vjp(g: Any, x: Any, out: Any, UPLO: str) -> Any:
    return fold_read(vectors_vjp_sym(g, eigh_values(x, UPLO), out), UPLO)


def _eigenvectors_jvp(t: Any, x: Any, out: Any, UPLO: str) -> Any:
    return vectors_jvp_sym(as_read(t, UPLO), eigh_values(x, UPLO), out)


EIGH_FORM = "x, UPLO='L'"
EIGH_NODE = ("LinalgEighBackward0", 1)  # one node per item (PyTorch: one for the tuple)
_READ = "reads the UPLO triangle, as NumPy computes: the gradient is zero on the other; "
VECTOR_KINK = "repeated values: the vectors have no derivative; inf/nan (as PyTorch)"
VALUE_KINK = ("repeated values: V diag(g) V^T with NumPy's vectors (as PyTorch), the "
              "derivative of any symmetric function of the values")
defrule("eigvalsh", np.linalg.eigvalsh, inputs=("x",), params=("UPLO",), form=EIGH_FORM,
        vjp={"x": _eigenvalues_vjp}, jvp={"x": _eigenvalues_jvp}, torch=EIGH_NODE,
        kinks=_READ + VALUE_KINK)
defrule("eigh_values", eigh_values, inputs=("x",), params=("UPLO",), form=EIGH_FORM,
        vjp={"x": _eigenvalues_vjp}, jvp={"x": _eigenvalues_jvp}, torch=EIGH_NODE,
        kinks=_READ + VALUE_KINK)
defrule("eigh_vectors", eigh_vectors, inputs=("x",), params=("UPLO",), form=EIGH_FORM,
        vjp={"x": _eigenvectors_vjp}, jvp={"x": _eigenvectors_jvp}, torch=EIGH_NODE,
        kinks=_READ + VECTOR_KINK)


# --- singular value decomposition (thin) -----------------------------------------------------
def _thin(x: Any, full_matrices: bool, what: str) -> None:
    """Refuse the full SVD's extra singular vectors of a non-square matrix: no derivative
    determines them (any orthonormal basis of the complement will do)."""
    m, n = np.shape(x)[-2:]
    if full_matrices and m != n:
        raise ValueError(
            f"np.linalg.svd of a {m}x{n} matrix with full_matrices=True (the default): its "
            f"{what} has {max(m, n) - min(m, n)} extra singular vectors that no derivative "
            "determines; pass full_matrices=False (or compute_uv=False for the values)")


@dispatching
def svd_u(x: Any, full_matrices: bool = False) -> Any:
    """``U`` of ``np.linalg.svd(x, full_matrices)`` (the thin one: square ``x`` if full)."""
    _thin(x, full_matrices, "U")
    return np.linalg.svd(x, full_matrices=False)[0]


@dispatching
def svd_s(x: Any) -> Any:
    """``s`` of ``np.linalg.svd(x, full_matrices=False)`` (as that call computes it)."""
    return np.linalg.svd(x, full_matrices=False)[1]


@dispatching
def svd_vt(x: Any, full_matrices: bool = False) -> Any:
    """``Vt`` of ``np.linalg.svd(x, full_matrices)`` (the thin one: square ``x`` if full)."""
    _thin(x, full_matrices, "Vt")
    return np.linalg.svd(x, full_matrices=False)[2]


def _values_vjp(g: Any, x: Any) -> Any:
    return np.matmul(svd_u(x) * _row(g), svd_vt(x))


def _values_jvp(t: Any, x: Any) -> Any:
    return np.sum(svd_u(x) * np.matmul(t, _mT(svd_vt(x))), axis=-2)


def _u_vjp(g: Any, x: Any, out: Any) -> Any:
    s, vt = svd_s(x), svd_vt(x)
    ut_g = np.matmul(_mT(out), g)
    inner = inverse_gaps(s * s) * (ut_g - _mT(ut_g)) * _row(s)
    outside = (g - np.matmul(out, ut_g)) / _row(s)  # the part of g off U's columns
    return np.matmul(np.matmul(out, inner) + outside, vt)


def _vt_vjp(g: Any, x: Any, out: Any) -> Any:
    u, s = svd_u(x), svd_s(x)
    g_v = np.matmul(g, _mT(out))  # = (V^T gV)^T with gV = g^T
    inner = _col(s) * (inverse_gaps(s * s) * (_mT(g_v) - g_v))
    outside = (g - np.matmul(g_v, out)) / _col(s)
    return np.matmul(u, np.matmul(inner, out) + outside)


def _projected(t: Any, x: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``U, s, Vt, F`` and ``dP = U^T t V`` of the thin SVD of ``x`` along ``t``."""
    u, s, vt = svd_u(x), svd_s(x), svd_vt(x)
    dp = np.matmul(_mT(u), np.matmul(t, _mT(vt)))
    return u, s, vt, inverse_gaps(s * s), dp


def _u_jvp(t: Any, x: Any) -> Any:
    u, s, vt, f, dp = _projected(t, x)
    tv = np.matmul(t, _mT(vt))
    inside = np.matmul(u, f * (dp * _row(s) + _col(s) * _mT(dp)))
    return inside + (tv - np.matmul(u, np.matmul(_mT(u), tv))) / _row(s)


def _vt_jvp(t: Any, x: Any) -> Any:
    u, s, vt, f, dp = _projected(t, x)
    ut_t = np.matmul(_mT(u), t)  # (t^T U)^T
    inside = np.matmul(_mT(f * (_col(s) * dp + _mT(dp) * _row(s))), vt)
    return inside + (ut_t - np.matmul(np.matmul(ut_t, _mT(vt)), vt)) / _col(s)


_SVD_NODE = ("LinalgSvdBackward0", 1)
_SINGULAR_KINK = ("repeated or zero singular values: U diag(g) Vt with NumPy's vectors (as "
                  "PyTorch)")
defrule("svdvals", np.linalg.svdvals, inputs=("x",), vjp={"x": _values_vjp},
        jvp={"x": _values_jvp}, torch=_SVD_NODE, pytorch=("sg.linalg.svdvals",),
        kinks=_SINGULAR_KINK)
defrule("svd_s", svd_s, inputs=("x",), vjp={"x": _values_vjp}, jvp={"x": _values_jvp},
        torch=_SVD_NODE, pytorch=("sg.linalg.svd",), kinks=_SINGULAR_KINK)
defrule("svd_u", svd_u, inputs=("x",), params=("full_matrices",), form="x, full_matrices=False",
        vjp={"x": _u_vjp}, jvp={"x": _u_jvp}, torch=_SVD_NODE, pytorch=("sg.linalg.svd",),
        kinks=VECTOR_KINK + "; zero singular values likewise")
defrule("svd_vt", svd_vt, inputs=("x",), params=("full_matrices",),
        form="x, full_matrices=False", vjp={"x": _vt_vjp}, jvp={"x": _vt_jvp},
        torch=_SVD_NODE, pytorch=("sg.linalg.svd",),
        kinks=VECTOR_KINK + "; zero singular values likewise")


# --- QR (reduced) ------------------------------------------------------------------------------
def _tall(x: Any) -> None:
    m, n = np.shape(x)[-2:]
    if m < n:
        raise ValueError(f"np.linalg.qr of a {m}x{n} matrix: srcgrad differentiates QR of a "
                         "matrix with at least as many rows as columns (R square); "
                         "factor the transpose instead (np.linalg.qr(a.T))")


@dispatching
def qr_q(x: Any) -> Any:
    """``Q`` of ``np.linalg.qr(x)`` (reduced; ``m >= n``)."""
    _tall(x)
    return np.linalg.qr(x)[0]


@dispatching
def qr_r(x: Any) -> Any:
    """``R`` of ``np.linalg.qr(x)`` (reduced; ``m >= n``)."""
    _tall(x)
    return np.linalg.qr(x)[1]


def _qr_vjp(g_q: Any, g_r: Any, q: Any, r: Any) -> Any:
    """``(g_Q + Q N) R^-T`` for either cotangent (``None``: that item is not used)."""
    m = 0.0
    if g_r is not None:
        m = np.matmul(g_r, _mT(r))
    if g_q is not None:
        m = m - np.matmul(_mT(q), g_q)
    mt = _mT(m)
    n = _mT(lower(mt, 1.0)) + lower(mt, 0.0)  # triu(M) + triu(M, 1)^T
    total = np.matmul(q, n) if g_q is None else g_q + np.matmul(q, n)
    return np.matmul(total, _mT(np.linalg.inv(r)))


def _qr_parts(t: Any, q: Any, r: Any) -> tuple[Any, Any, Any]:
    """``C = Q^T t R^-1``, ``O`` (skew: ``Q^T dQ``) and ``t R^-1``."""
    t_rinv = np.matmul(t, np.linalg.inv(r))
    c = np.matmul(_mT(q), t_rinv)
    below = lower(c, 0.0)
    return c, below - _mT(below), t_rinv


def _q_jvp(t: Any, x: Any, out: Any) -> Any:
    c, omega, t_rinv = _qr_parts(t, out, qr_r(x))
    return np.matmul(out, omega) + t_rinv - np.matmul(out, c)


def _r_jvp(t: Any, x: Any, out: Any) -> Any:
    c, omega, _ = _qr_parts(t, qr_q(x), out)
    return np.matmul(c - omega, out)


defrule("qr_q", qr_q, inputs=("x",),
        vjp={"x": lambda g, x, out: _qr_vjp(g, None, out, qr_r(x))}, jvp={"x": _q_jvp},
        torch=("LinalgQrBackward0", 1), pytorch=("sg.linalg.qr",))
defrule("qr_r", qr_r, inputs=("x",),
        vjp={"x": lambda g, x, out: _qr_vjp(None, g, qr_q(x), out)}, jvp={"x": _r_jvp},
        torch=("LinalgQrBackward0", 1), pytorch=("sg.linalg.qr",))
