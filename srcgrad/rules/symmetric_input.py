"""PyTorch's convention for its symmetric decompositions: the input *is* symmetric.

Where it sits: rules for the runtime's PyTorch spellings ``sg.linalg.cholesky``,
``sg.linalg.eigvalsh`` and ``sg.linalg.eigh`` (``runtime_only``). They compute what NumPy
computes (one triangle read), but differentiate as ``torch.linalg`` does: the gradient is
the symmetric ``H`` (not folded onto the triangle read) and a tangent counts by its
symmetric part. The NumPy spellings (``np.linalg.*``, compiler and NumPy-on-Tensors) keep
the rules of :mod:`.decompositions`, the derivative of what NumPy computes. The formulas
are the same (``*_sym`` there); only the reading of ``A`` differs, so these are separate
primitives rather than one rule with a param that NumPy's own call would not accept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .decompositions import (
    EIGH_FORM,
    EIGH_NODE,
    VALUE_KINK,
    VECTOR_KINK,
    cholesky_jvp_sym,
    cholesky_vjp_sym,
    sym,
    values_jvp_sym,
    values_vjp_sym,
    vectors_jvp_sym,
    vectors_vjp_sym,
)
from .dispatch import dispatching
from .registry import defrule


@dispatching
def symmetric_cholesky(x: Any, upper: bool = False) -> Any:
    """``torch.linalg.cholesky(x, upper=upper)``: NumPy's factor."""
    return np.linalg.cholesky(x, upper=upper)


@dispatching
def symmetric_eigvalsh(x: Any, UPLO: str = "L") -> Any:
    """``torch.linalg.eigvalsh(x, UPLO)``: NumPy's values."""
    return np.linalg.eigvalsh(x, UPLO)


@dispatching
def symmetric_eigh_values(x: Any, UPLO: str = "L") -> Any:
    """``torch.linalg.eigh(x, UPLO)[0]``."""
    return np.linalg.eigh(x, UPLO)[0]


@dispatching
def symmetric_eigh_vectors(x: Any, UPLO: str = "L") -> Any:
    """``torch.linalg.eigh(x, UPLO)[1]``."""
    return np.linalg.eigh(x, UPLO)[1]


# The values/vectors the formulas need are recomputed with these primitives, so the second
# derivative treats the input as symmetric too (as PyTorch's double backward does).
def _values_vjp(g: Any, x: Any, UPLO: str) -> Any:
    return values_vjp_sym(g, symmetric_eigh_vectors(x, UPLO))


def _values_jvp(t: Any, x: Any, UPLO: str) -> Any:
    return values_jvp_sym(sym(t), symmetric_eigh_vectors(x, UPLO))


def _vectors_vjp(g: Any, x: Any, out: Any, UPLO: str) -> Any:
    return vectors_vjp_sym(g, symmetric_eigh_values(x, UPLO), out)


def _vectors_jvp(t: Any, x: Any, out: Any, UPLO: str) -> Any:
    return vectors_jvp_sym(sym(t), symmetric_eigh_values(x, UPLO), out)


_AS_SYMMETRIC = "input treated as symmetric (PyTorch): symmetric gradient; "
defrule("symmetric_cholesky", symmetric_cholesky, inputs=("x",), params=("upper",),
        form="x, upper=False", vjp={"x": cholesky_vjp_sym}, jvp={"x": cholesky_jvp_sym},
        torch=("LinalgCholeskyExBackward0", 1), pytorch=("sg.linalg.cholesky",),
        runtime_only=True, kinks=_AS_SYMMETRIC + "needs positive definite")
defrule("symmetric_eigvalsh", symmetric_eigvalsh, inputs=("x",), params=("UPLO",),
        form=EIGH_FORM, vjp={"x": _values_vjp}, jvp={"x": _values_jvp},
        torch=EIGH_NODE, pytorch=("sg.linalg.eigvalsh",), runtime_only=True,
        kinks=_AS_SYMMETRIC + VALUE_KINK)
defrule("symmetric_eigh_values", symmetric_eigh_values, inputs=("x",), params=("UPLO",),
        form=EIGH_FORM, vjp={"x": _values_vjp}, jvp={"x": _values_jvp},
        torch=EIGH_NODE, pytorch=("sg.linalg.eigh",), runtime_only=True,
        kinks=_AS_SYMMETRIC + VALUE_KINK)
defrule("symmetric_eigh_vectors", symmetric_eigh_vectors, inputs=("x",), params=("UPLO",),
        form=EIGH_FORM, vjp={"x": _vectors_vjp}, jvp={"x": _vectors_jvp},
        torch=EIGH_NODE, pytorch=("sg.linalg.eigh",), runtime_only=True,
        kinks=_AS_SYMMETRIC + VECTOR_KINK)
