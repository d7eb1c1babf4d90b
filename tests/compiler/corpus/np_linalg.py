"""Corpus: products and linear algebra (``np.dot``, ``np.matmul``, ``np.outer``,
``np.inner``, ``np.einsum``, ``np.linalg.norm/inv/solve/det``, ``np.trace``, ``np.diag``)."""

import numpy as np

from . import ND, F, program

WELL_CONDITIONED = np.array([[3.0, 0.5, -0.25], [0.5, 2.5, 0.3], [-0.2, 0.4, 2.0]])


def _well_conditioned(A):
    return A * 0.3 + WELL_CONDITIONED


@program(F((2, 3)), F((3,)), kinds=ND, wrt=(0, 1))
def np_dot(A, v):
    return np.sum(np.dot(A, v) ** 2) + np.dot(v, v) + np.sum(np.dot(A, A.T))


@program(F((2, 3)), F((3, 4)), kinds=ND, wrt=(0, 1))
def np_matmul(A, B):
    return np.sum(np.sin(np.matmul(A, B))) + np.sum(np.matmul(A[0], B))


@program(F((4, 2, 3)), F((3, 2)), kinds=ND, wrt=(0, 1))
def np_matmul_batched(A, B):
    # a (4, 2, 3) stack times one (3, 2) matrix: the adjoint of B sums over the batch
    return np.sum(np.matmul(A, B) ** 2)


@program(F((3,)), F((4,)), kinds=ND, wrt=(0, 1))
def np_outer(u, v):
    return np.sum(np.outer(u, v) * np.arange(12.0).reshape(3, 4))


@program(F((2, 3)), F((4, 3)), kinds=ND, wrt=(0, 1))
def np_inner(A, B):
    return np.sum(np.inner(A, B) ** 2) + np.inner(A[0], B[1])


@program(F((2, 3)), F((3, 4)), kinds=ND, wrt=(0, 1))
def np_einsum(A, B):
    C = np.einsum("ij,jk->ik", A, B)
    t = np.einsum("ij,ij->", A, A)
    return np.sum(C ** 2) + t + np.sum(np.einsum("ij->j", B))


@program(F((2, 3)), kinds=ND)
def np_norm(A):
    return np.linalg.norm(A) + np.linalg.norm(A[0]) * 2.0 + np.sum(np.linalg.norm(A, axis=1))


@program(F((3, 3)), kinds=ND)
def np_inv(A):
    M = _well_conditioned(A)
    return np.sum(np.linalg.inv(M) * np.arange(9.0).reshape(3, 3))


@program(F((3, 3)), F((3,)), kinds=ND, wrt=(0, 1))
def np_solve(A, b):
    x = np.linalg.solve(_well_conditioned(A), b)
    return np.sum(x * np.array([1.0, -2.0, 0.5]))


@program(F((3, 3)), kinds=ND)
def np_det(A):
    return np.linalg.det(_well_conditioned(A))


@program(F((3, 3)), kinds=ND)
def np_trace_diag(A):
    return np.trace(A) * 2.0 + np.sum(np.diag(A) ** 2) + np.sum(np.diag(np.diag(A)) * A)


@program(F((3,)), kinds=ND)
def np_diag_of_vector(v):
    return np.sum(np.diag(v) @ np.arange(9.0).reshape(3, 3))
