"""``np.linalg.eig`` / ``np.linalg.eigvals`` of a real matrix whose eigenvalues are real.

Where it sits: in the rule table (bottom layer), beside :mod:`.decompositions` (the
symmetric ``eigh``); the tuple result is a :mod:`.multi` record, one primitive per item.

srcgrad differentiates real values only. A real matrix may have complex eigenvalues (NumPy
then returns complex arrays): that is refused when it runs (``ValueError`` naming the
function and what to do instead: ``RealValuesOnly``, which the compiler raises as a
``SrcGradError`` at the user's line), never differentiated as if it were real. With real,
distinct eigenvalues ``w`` and NumPy's eigenvectors ``V`` (``A = V diag(w) V^-1``; every
column scaled to unit 2-norm, NumPy's convention, its sign as LAPACK returns it), with
``F = inverse_gaps(w)`` (``F_ij = 1 / (w_j - w_i)``, 0 on the diagonal) and
``C = V^-1 T V`` for a tangent ``T`` (Giles 2008; Boeddeker et al. 2017 for the
unit-norm columns):

=============  =======================================================================
eig_values     JVP ``diag(C)``; VJP ``V^-T diag(g) V^T``
eig_vectors    JVP ``dV = V (F o C)``, then each column's component along itself taken
               out (``dv_j -= v_j (v_j . dv_j)``: the columns stay unit vectors);
               VJP ``V^-T (F o (V^T g - V^T V diag(diag(V^T g)))) V^T``
=============  =======================================================================

Repeated eigenvalues: the vectors have no derivative (``inf``/``nan``, as ``eigh``'s);
the values' formula needs ``V`` invertible (a diagonalisable matrix).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .complex_parts import RealValuesOnly
from .dispatch import dispatching
from .multi import Item, defmulti
from .registry import defrule
from .triangular import inverse_gaps

EigResult = type(np.linalg.eig(np.eye(2)))


def _mT(a: Any) -> Any:
    return np.swapaxes(a, -1, -2)


def _row(v: Any) -> Any:
    """Per-column factors as a row that scales columns."""
    return np.expand_dims(v, -2)


def _col(v: Any) -> Any:
    """Per-row factors as a column that scales rows."""
    return np.expand_dims(v, -1)


def _real_eig(x: Any) -> tuple[Any, Any]:
    w, v = np.linalg.eig(x)
    if np.iscomplexobj(w):
        if np.any(np.imag(w) != 0):
            raise RealValuesOnly(
                "np.linalg.eig: this matrix has complex eigenvalues, and srcgrad "
                "differentiates real values only.",
                "For a symmetric matrix use np.linalg.eigh; else use a function of the "
                "matrix that stays real (np.trace, np.linalg.det, np.linalg.slogdet).")
        w, v = np.real(w), np.real(v)
    return w, v


@dispatching
def eig_values(x: Any) -> Any:
    """``np.linalg.eig(x)[0]`` (= ``np.linalg.eigvals(x)``) of a matrix with real ones."""
    return _real_eig(x)[0]


@dispatching
def eig_vectors(x: Any) -> Any:
    """``np.linalg.eig(x)[1]``: unit-norm columns, for real eigenvalues."""
    return _real_eig(x)[1]


def _values_vjp(g: Any, x: Any) -> Any:
    v = eig_vectors(x)
    return np.linalg.solve(_mT(v), _col(g) * _mT(v))


def _values_jvp(t: Any, x: Any) -> Any:
    v = eig_vectors(x)
    return np.sum(_mT(np.linalg.inv(v)) * (t @ v), axis=-2)


def _vectors_vjp(g: Any, x: Any, out: Any) -> Any:
    f = inverse_gaps(eig_values(x))
    vt = _mT(out)
    k = vt @ g - (vt @ out) * _row(np.sum(out * g, axis=-2))
    return np.linalg.solve(vt, (f * k) @ vt)


def _vectors_jvp(t: Any, x: Any, out: Any) -> Any:
    f = inverse_gaps(eig_values(x))
    moved = out @ (f * (np.linalg.inv(out) @ t @ out))
    return moved - out * _row(np.sum(out * moved, axis=-2))


defrule("eig_values", eig_values, inputs=("x",), aliases=(np.linalg.eigvals,),
        vjp={"x": _values_vjp}, jvp={"x": _values_jvp},
        kinks="real eigenvalues only (complex ones are refused when it runs); needs a "
              "diagonalisable matrix")
defrule("eig_vectors", eig_vectors, inputs=("x",),
        vjp={"x": _vectors_vjp}, jvp={"x": _vectors_jvp},
        kinks="unit-norm columns (NumPy's), each kept unit: dv_j is orthogonal to v_j; real "
              "distinct eigenvalues only (complex ones are refused when it runs, repeated "
              "ones give inf/nan)")
defmulti("linalg.eig", np.linalg.eig, form="a", inputs=("a",),
         item_rules=("eig_values", "eig_vectors"),
         items=lambda env, ndims: [Item("eig_values", {"x": env["a"]}),
                                   Item("eig_vectors", {"x": env["a"]})],
         result=lambda items: EigResult(*items))
