"""Corpus: subscript reads (ints, slices, ``x[:, 0]``, masks, index arrays, ``None``,
``...``), building arrays from lists and tuples (``np.array([a, b])``, ``np.stack``)."""

import numpy as np

from . import ALL, ND, SCALAR, C, F, program


@program(F((5,)), kinds=ND)
def index_int(x):
    return x[0] * x[2] + x[-1] ** 2


@program(F((6,)), kinds=ND)
def index_slices(x):
    return np.sum(x[1:3] * x[3:5]) + np.sum(x[::2]) + np.sum(x[::-1] * x)


@program(F((3, 4)), kinds=ND)
def index_column_row(A):
    return np.sum(A[:, 0] * A[:, 1]) + np.sum(A[1] ** 2) + A[2, 3] * A[0, -1]


@program(F((6,)), kinds=ND)
def index_mask_computed(x):
    mask = x > 0.0
    return np.sum(x[mask] ** 2) + np.sum(np.exp(x[~mask]))


@program(F((5,)), C(np.array([True, False, True, True, False])), kinds=ND)
def index_mask_argument(x, mask):
    return np.sum(np.sin(x[mask]))


@program(F((4,)), C(np.array([0, 2, 2, 3, 0])), kinds=ND)
def index_int_array_repeats(x, idx):
    # repeated indices accumulate in the adjoint
    return np.sum(x[idx] * np.arange(1.0, 6.0))


@program(F((2, 3)), kinds=ND)
def index_none_ellipsis(A):
    return np.sum(A[None] * A[:, None, :]) + np.sum(A[..., 1])


@program(F((3, 4)), C(1), kinds=ND)
def index_by_int_argument(A, i):
    return np.sum(A[i] * A[i + 1, :])


@program(F(), F(), kinds=ALL, wrt=(0, 1))
def tuple_subscript(x, y):
    t = (x, y * 2.0, x * y)
    return np.sum(t[0] * t[1] + t[-1])


@program(F(), F(), kinds=SCALAR, wrt=(0, 1))
def array_from_scalars(a, b):
    v = np.array([a, b * a, 3.0])
    return np.sum(v ** 2 * np.array([1.0, 2.0, 3.0]))


@program(F((3,)), F((3,)), kinds=ND, wrt=(0, 1))
def array_from_arrays(x, y):
    M = np.array([x, y, x * y])
    return np.sum(M @ np.array([1.0, -1.0, 0.5]))


@program(F(), F(), kinds=SCALAR, wrt=(0, 1))
def array_from_tuple(a, b):
    v = np.array((a, np.sin(b)))
    return np.sum(v * v[::-1])


@program(F((3,)), F((3,)), kinds=ND, wrt=(0, 1))
def stack_list(x, y):
    S = np.stack([x, y * 2.0, x * y])
    return np.sum(S[1:] ** 2) + np.sum(S[0])


@program(F((3,)), F((3,)), kinds=ND, wrt=(0, 1))
def stack_axis1(x, y):
    S = np.stack((x, y), axis=1)
    return np.sum(S * np.array([1.0, 2.0]))


@program(F(), F(), kinds=SCALAR, wrt=(0, 1))
def stack_scalars(a, b):
    return np.sum(np.stack([a * b, a, b]) ** 2)
