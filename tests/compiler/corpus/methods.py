"""Corpus: ndarray methods and attributes (``x.T``, ``.shape``, ``.ndim``, ``.sum()``,
``.mean()``, ``.max()``, ``.min()``, ``.prod()``, ``.dot()``, ``.reshape()``,
``.transpose()``, ``.flatten()``, ``.ravel()``, ``.copy()``, ``.astype()``)."""

import numpy as np

from . import ND, F, program


@program(F((2, 3)), kinds=ND)
def method_T(A):
    return np.sum(A.T @ A)


@program(F((2, 3)), kinds=ND)
def attr_shape_ndim(A):
    rows, cols = A.shape
    return np.sum(A * rows) / cols + A.ndim * np.sum(A ** 2) + A.shape[0]


@program(F((2, 3)), kinds=ND)
def method_sum(A):
    return A.sum() + (A * A).sum()


@program(F((2, 3)), kinds=ND)
def method_sum_axis(A):
    s0 = A.sum(axis=0)
    s1 = A.sum(1, keepdims=True)
    return np.sum(s0 ** 2) + np.sum(s1 * A)


@program(F((2, 3)), kinds=ND)
def method_mean(A):
    return A.mean() * 3.0 + np.sum(A.mean(axis=1) ** 2) + np.sum(A.mean(0, keepdims=True) * A)


@program(F((2, 3), distinct=True), kinds=ND)
def method_max_min(A):
    return A.max() - A.min() + np.sum(A.max(axis=0)) * 2.0 + np.sum(A.min(axis=1, keepdims=True))


@program(F((2, 3), lo=0.5, hi=1.5), kinds=ND)
def method_prod(A):
    return A.prod() + np.sum(A.prod(axis=0))


@program(F((3,)), F((3,)), kinds=ND, wrt=(0, 1))
def method_dot_vec(x, y):
    return x.dot(y) * x.dot(x)


@program(F((2, 3)), F((3,)), kinds=ND, wrt=(0, 1))
def method_dot_mat(A, v):
    return np.sum(A.dot(v) ** 2)


@program(F((2, 3)), kinds=ND)
def method_reshape(A):
    B = A.reshape(3, 2)
    C = A.reshape((6,))
    D = A.reshape(-1, 1)
    return np.sum(B @ A) + np.sum(C * np.arange(6.0)) + np.sum(D * D)


@program(F((2, 3, 4)), kinds=ND)
def method_transpose(A):
    B = A.transpose()
    C = A.transpose(1, 0, 2)
    D = A.transpose((2, 0, 1))
    return np.sum(B[0] * np.arange(6.0).reshape(3, 2)) + np.sum(C[1] ** 2) + np.sum(D[3] * 2.0)


@program(F((2, 3)), kinds=ND)
def method_flatten_ravel(A):
    return np.sum(A.flatten() * np.arange(6.0)) + np.sum(A.ravel() ** 2)


@program(F((2, 3)), kinds=ND)
def method_copy(A):
    B = A.copy()
    return np.sum(B * A)


@program(F((2, 3)), kinds=ND)
def method_astype(A):
    B = A.astype(np.float64)
    C = A.astype("float64")
    return np.sum(B * C + np.sin(B))


@program(F((2, 3)), kinds=ND)
def method_chain(A):
    return A.T.reshape(-1).dot(A.ravel()) + A.sum(axis=0).mean()
