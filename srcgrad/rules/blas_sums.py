"""Sums of a float64 matrix over its first or last axis as a product with ones.

``unbroadcast`` (every bias's cotangent, a keepdims reduction's adjoint) sums cotangents
over one axis. NumPy's ``add.reduce`` over a short axis runs its inner loop once per lane
(150x3 summed over its 3 columns: 2.7 us, 2000x3: 26 us), and over the first axis of a
narrow matrix it walks rows of a few elements; a matrix-vector product with ones (BLAS)
does either in one call (1.7 us, 2.8 us). float64 ndarrays take it both ways: BLAS's
partial-sum order is as accurate as NumPy's there. float32 takes it over the first axis
only (``batch_summable``): NumPy adds a C-ordered matrix's rows one after another there,
no pairwise sum, and BLAS's blocked sum is as accurate (64x1024: 19 us -> 12 us, 512x256:
60 us -> 21 us); a row's last axis keeps NumPy's pairwise sum. Imports nothing of ours (a
helper of :mod:`.helpers`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# below this many elements the product's setup costs as much as the reduction it replaces
_MIN_SIZE = 64
# the ones vectors by length, read-only (making one costs half the product it serves);
# lengths past _CACHED are made per call, so the cache stays small
_CACHED = 4096
_ONES: dict[tuple[int, Any], np.ndarray] = {}


def _ones(n: int, dtype: Any = np.float64) -> np.ndarray:
    ones = _ONES.get((n, dtype))
    if ones is None:
        ones = np.ones(n, dtype)
        if n <= _CACHED:
            ones.flags.writeable = False
            _ONES[n, dtype] = ones
    return ones


def blas_summable(x: Any) -> bool:
    """``x`` is a float64 ndarray of at least two dimensions, large enough to pay."""
    return (type(x) is np.ndarray and x.dtype == np.float64 and x.ndim >= 2
            and x.size >= _MIN_SIZE)


def batch_summable(x: Any) -> bool:
    """``x`` may be summed over its first axis by :func:`sum_first_axis`: a float64 or
    float32 ndarray of at least two dimensions, large enough to pay."""
    return (type(x) is np.ndarray and (x.dtype == np.float64 or x.dtype == np.float32)
            and x.ndim >= 2 and x.size >= _MIN_SIZE)


def sum_first_axis(x: np.ndarray) -> np.ndarray:
    """``np.sum(x, axis=0)`` of a 2-d float64 or float32 matrix (``batch_summable``), in
    its dtype (ones of that dtype: float32 stays float32)."""
    return _ones(x.shape[0], x.dtype.type) @ x


def sum_last_axis_keepdims(x: np.ndarray) -> np.ndarray:
    """``np.sum(x, axis=-1, keepdims=True)`` of a float64 array (``blas_summable``)."""
    return (x @ _ones(x.shape[-1]))[..., None]
