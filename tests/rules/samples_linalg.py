"""Samples for the linear algebra rules of issue 14 (``srcgrad/rules/decompositions.py``,
``matrix_functions.py``, ``triangular.py``), added to :mod:`.samples`' table.

Values keep each derivative defined and well away from where it is not: symmetric
positive definite matrices with distinct eigenvalues, matrices with distinct nonzero
singular values, full column rank for QR and ``pinv``, nonsingular matrices (negative
determinants included) for ``slogdet`` and negative powers. ``cholesky`` and ``eigh`` read
one triangle: their NumPy spellings are checked at non-symmetric inputs (noise in the
triangle not read) in general directions; PyTorch's ``symmetric_*`` spellings treat the
input as symmetric (``Sample.symmetric``).
"""

from __future__ import annotations

import numpy as np

from .samples import Sample, add, each

_rng = np.random.default_rng(14)


def _r(shape: tuple[int, ...]) -> np.ndarray:
    return _rng.uniform(-1.0, 1.0, shape)


def spd(shape: tuple[int, ...]) -> np.ndarray:
    """Symmetric positive definite, eigenvalues spread apart (distinct)."""
    n = shape[-1]
    b = _r(shape)
    return b @ np.swapaxes(b, -1, -2) + np.diag(np.arange(1.0, n + 1.0))


def nonsingular(shape: tuple[int, ...]) -> np.ndarray:
    return _r(shape) * 0.5 + 2.0 * np.eye(shape[-1])


SQUARE = [(3, 3), (2, 3, 3), (1, 1)]
TALL = [(4, 3), (3, 3), (2, 4, 3), (5, 2)]
WIDE = [(3, 4), (2, 2, 5)]



def read_one(shape: tuple[int, ...], uplo: str) -> np.ndarray:
    """Symmetric positive definite in the triangle ``uplo`` NumPy reads, noise in the other."""
    n = shape[-1]
    noise = _r(shape) * np.tri(n, n, -1)  # strictly lower
    return spd(shape) + (np.swapaxes(noise, -1, -2) if uplo == "L" else noise)


_SYM = ("x",)
each("cholesky", [{"x": read_one(s, "L"), "upper": False} for s in SQUARE])
each("cholesky", [{"x": read_one((3, 3), "U"), "upper": True}])
each("symmetric_cholesky", [{"x": spd(s), "upper": False} for s in SQUARE], symmetric=_SYM)
each("symmetric_cholesky", [{"x": spd((3, 3)), "upper": True}], symmetric=_SYM)
for _name in ("eigvalsh", "eigh_values", "eigh_vectors"):
    each(_name, [{"x": read_one(s, "L"), "UPLO": "L"} for s in SQUARE[:2]])
    each(_name, [{"x": read_one((4, 4), "U"), "UPLO": "U"}])
    each("symmetric_" + _name, [{"x": spd(s), "UPLO": "L"} for s in SQUARE[:2]],
         symmetric=_SYM)
    each("symmetric_" + _name, [{"x": spd((4, 4)), "UPLO": "U"}], symmetric=_SYM)
for _name in ("svdvals", "svd_s"):
    each(_name, [{"x": _r(s)} for s in TALL + WIDE])
for _name in ("svd_u", "svd_vt"):
    each(_name, [{"x": _r(s), "full_matrices": False} for s in TALL + WIDE])
    each(_name, [{"x": _r((3, 3)), "full_matrices": True}])  # square: full is thin
for _name in ("qr_q", "qr_r"):
    each(_name, [{"x": _r(s)} for s in TALL])
each("slogdet_logabsdet", [{"x": nonsingular(s)} for s in SQUARE])
each("slogdet_logabsdet", [{"x": nonsingular((3, 3))[[1, 0, 2]]}])  # negative determinant
each("slogdet_sign", [{"x": nonsingular((3, 3))}, {"x": nonsingular((2, 3, 3))[:, [1, 0, 2]]}])
each("pinv", [{"x": _r(s), "rcond": None, "hermitian": False} for s in TALL + WIDE])
each("matrix_power", [{"x": nonsingular((3, 3)) / 2.0, "n": n} for n in (2, 3, 1, 0, -1, -2)])
each("matrix_power", [{"x": nonsingular((2, 3, 3)) / 2.0, "n": 3}])
_MULTI = [[(3, 4), (4, 5)], [(4,), (4, 3), (3,)], [(4,), (4, 5), (5, 2)], [(3, 4), (4,)],
          [(2, 3), (3, 4), (4, 5), (5, 2)]]
each("multi_dot", [{"arrays": [_r(s) for s in shapes]} for shapes in _MULTI])
each("lower", [{"x": _r((3, 3)), "diagonal": d} for d in (1.0, 0.5, 0.0)])
each("lower", [{"x": _r((2, 3, 4)), "diagonal": 0.5}])
each("inverse_gaps", [{"w": np.array([0.5, 1.5, 3.0, -1.0])},
                      {"w": np.array([[1.0, 2.0, 4.0], [-2.0, 0.5, 1.0]])}])
add("inverse_gaps", Sample({"w": np.array([1.0, 2.5])}, label="two values"))
