"""Corpus: NumPy reductions (``sum mean prod max min var std`` with ``axis`` and
``keepdims``) and ``np.cumsum``."""

import numpy as np

from . import ALL, ND, F, program

WEIGHTS_3x4 = np.arange(12.0).reshape(3, 4) / 7.0 - 0.5


@program(F())
def np_sum_full(x):
    return np.sum(x * x) + np.sum(np.sin(x))


@program(F((3, 4)), kinds=ND)
def np_sum_axis_keepdims(A):
    s0 = np.sum(A, axis=0)
    s1 = np.sum(A, axis=1, keepdims=True)
    s2 = np.sum(A, axis=(0, 1), keepdims=True)
    s3 = np.sum(A, axis=-1)
    return np.sum(s0 ** 2) + np.sum(s1 * A) + np.sum(s2 * A) + np.sum(np.cos(s3))


@program(F((3, 4)), kinds=ND)
def np_mean_axis(A):
    return np.mean(A) ** 2 + np.sum(np.mean(A, axis=0) ** 2) + np.sum(
        np.mean(A, axis=1, keepdims=True) * A)


@program(F((3, 4), lo=0.5, hi=1.5), kinds=ND)
def np_prod_axis(A):
    return np.prod(A) + np.sum(np.prod(A, axis=1)) + np.sum(np.prod(A, axis=0, keepdims=True) * A)


@program(F((3, 4), distinct=True), kinds=ND)
def np_max_min_axis(A):
    return (np.max(A) * 2.0 - np.min(A)
            + np.sum(np.max(A, axis=0) * np.arange(4.0))
            + np.sum(np.min(A, axis=1, keepdims=True) * A))


@program(F((3, 4)), kinds=ND)
def np_var_std(A):
    return (np.var(A) + np.std(A) * 2.0
            + np.sum(np.var(A, axis=0)) + np.sum(np.std(A, axis=1, keepdims=True) * A))


@program(F((3, 4)), kinds=ND)
def np_cumsum(A):
    return (np.sum(np.cumsum(A) * np.arange(12.0))
            + np.sum(np.cumsum(A, axis=0) ** 2) + np.sum(np.cumsum(A, axis=1) * WEIGHTS_3x4))


@program(F(), kinds=ALL)
def np_reductions_of_scalars(x):
    # reductions of a 0-d value are the value itself
    return np.sum(x) * np.mean(x) + np.max(x * 2.0) + np.min(x) ** 2
