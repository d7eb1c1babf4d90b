"""NumPy's linear algebra applied to Tensors (NumPy's dispatch records the table's rules,
tuple results one node per item) gives the gradient the compiler gives for the same
function: compiler == runtime, first and second order."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg

rng = np.random.default_rng(1414)
B = rng.uniform(-1.0, 1.0, (4, 3))
SQUARE = rng.uniform(-1.0, 1.0, (3, 3)) + 2.0 * np.eye(3)


def decompositions(b):
    k = b.T @ b + np.eye(3)
    L = np.linalg.cholesky(k)
    w, V = np.linalg.eigh(k)
    U, s, Vt = np.linalg.svd(b, full_matrices=False)
    Q, R = np.linalg.qr(b)
    sign, logdet = np.linalg.slogdet(k)
    return (np.sum(L * L) + np.sum(w * V[0] ** 2) + np.sum(U ** 2 * s) + np.sum(Vt[0] ** 2)
            + np.sum(Q[:, 0] ** 2 * np.arange(4.0)) + np.sum(R * R) + sign * logdet
            + np.sum(np.linalg.eigvalsh(k) ** 3) + np.sum(np.linalg.svdvals(b)))


def matrix_functions(a):
    return (np.sum(np.linalg.pinv(a[:, :2]) ** 2) + np.sum(np.linalg.matrix_power(a, -2))
            + np.sum(np.linalg.matrix_power(a, 3)) + np.linalg.multi_dot([a[0], a, a, a[:, 1]])
            + np.linalg.norm(a, 2) + np.linalg.norm(a, "nuc") + np.linalg.norm(a, -np.inf)
            + np.linalg.norm(a[0], 1))


@pytest.mark.parametrize("f, x", [(decompositions, B), (matrix_functions, SQUARE)],
                         ids=["decompositions", "matrix_functions"])
def test_numpy_linalg_on_tensors_gives_the_compilers_gradient_and_hessian(f, x):
    sg.clear_cache()
    t = sg.tensor(x, requires_grad=True)
    f(t).backward()
    np.testing.assert_allclose(t.grad.numpy(), sg.grad(f)(x), rtol=1e-10, atol=1e-12)
    h = sg.autograd.functional.hessian(lambda v: f(v), sg.tensor(x))
    np.testing.assert_allclose(np.asarray(h.numpy()), sg.hessian(f)(x), rtol=1e-8, atol=1e-10)
