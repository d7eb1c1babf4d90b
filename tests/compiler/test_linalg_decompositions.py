"""Issue 14's linear algebra through the compiler: ``np.linalg.cholesky`` (a Gaussian-process
negative log likelihood), ``eigvalsh``, ``svdvals`` / ``svd(compute_uv=False)``, ``pinv``,
``matrix_power`` (negative powers too) and ``multi_dot``, in reverse and forward mode and at
second order against central differences, batched where NumPy is, in float32. The
tuple-returning ones (eigh, svd, qr, slogdet): ``test_linalg_tuples.py``."""

from __future__ import annotations

import numpy as np
import pytest
from fd import numeric_gradient, numeric_hessian

import srcgrad as sg

rng = np.random.default_rng(2026)
SQUARE = rng.uniform(-1.0, 1.0, (3, 3))
TALL = rng.uniform(-1.0, 1.0, (4, 3))
BATCH = rng.uniform(-1.0, 1.0, (2, 3, 3))
X = np.linspace(0.0, 1.0, 5)
Y = np.sin(3.0 * X)


def _check(f, x, hessian=True):
    """Reverse and forward mode (and the Hessian) of scalar ``f`` at ``x`` against central
    differences."""
    sg.clear_cache()
    want = numeric_gradient(f, [x], {}, 0)
    np.testing.assert_allclose(sg.grad(f)(x), want, rtol=1e-6, atol=1e-7)
    u = np.random.default_rng(1).standard_normal(np.shape(x))
    _, t = sg.jvp(f)(x, u)
    np.testing.assert_allclose(t, np.sum(want * u), rtol=1e-6, atol=1e-7)
    if hessian:
        h = sg.hessian(f)(x)
        n = np.size(x)
        np.testing.assert_allclose(np.reshape(h, (n, n)),
                                   np.reshape(numeric_hessian(sg.grad(f), [x]), (n, n)),
                                   rtol=1e-5, atol=1e-6)


# --- cholesky --------------------------------------------------------------------------------
def gp_negative_log_likelihood(theta):
    d = X[:, None] - X[None, :]
    K = np.exp(theta[0]) * np.exp(-0.5 * d**2 / np.exp(theta[1])) + 0.1 * np.eye(5)
    L = np.linalg.cholesky(K)
    return 0.5 * Y @ np.linalg.solve(K, Y) + np.sum(np.log(np.diag(L)))


def test_cholesky_in_a_gaussian_process_likelihood_differentiates_in_both_modes_and_twice():
    _check(gp_negative_log_likelihood, np.array([0.3, -1.0]))


def cholesky_of_gram(b):
    L = np.linalg.cholesky(b @ b.T + 3.0 * np.eye(3))
    return np.sum(L * np.arange(9.0).reshape(3, 3)) + np.sum(np.linalg.cholesky(
        b.T @ b + np.eye(3), upper=True) ** 2)


def test_cholesky_lower_and_upper_of_a_gram_matrix_differentiate():
    _check(cholesky_of_gram, SQUARE)


def batched_cholesky(b):
    k = b @ np.swapaxes(b, -1, -2) + 2.0 * np.eye(3)
    return np.sum(np.sin(np.linalg.cholesky(k)))


def test_batched_cholesky_differentiates():
    _check(batched_cholesky, BATCH)


def cholesky_only(a):
    return np.sum(np.linalg.cholesky(a) ** 2)


def test_cholesky_gradient_is_symmetric_as_pytorchs():
    a = SQUARE @ SQUARE.T + 2.0 * np.eye(3)
    g = sg.grad(cholesky_only)(a)
    np.testing.assert_allclose(g, g.T, rtol=1e-12, atol=1e-14)
    # and it is the derivative along every symmetric direction
    u = rng.standard_normal((3, 3))
    u = u + u.T
    fd = (cholesky_only(a + 1e-6 * u) - cholesky_only(a - 1e-6 * u)) / 2e-6
    assert np.sum(g * u) == pytest.approx(fd, rel=1e-6)


# --- eigvalsh, svdvals, svd(compute_uv=False) --------------------------------------------------
def eigenvalues_of_gram(b):
    w = np.linalg.eigvalsh(b @ b.T + np.diag([1.0, 2.0, 3.0]))
    return np.sum(w ** 3) + w[0] * w[2]


def test_eigvalsh_differentiates_in_both_modes_and_twice():
    _check(eigenvalues_of_gram, SQUARE)


def singular_values(a):
    return np.sum(np.linalg.svdvals(a) ** 3) + np.sum(np.linalg.svd(a, compute_uv=False)[..., 0])


@pytest.mark.parametrize("a", [TALL, TALL.T, BATCH], ids=["tall", "wide", "batched"])
def test_singular_values_differentiate_in_both_modes_and_twice(a):
    _check(singular_values, a)


# --- pinv, matrix_power, multi_dot ---------------------------------------------------------------
def pseudo_inverse(a):
    return np.sum(np.linalg.pinv(a) ** 2) + np.linalg.pinv(a.T)[0, 1]


@pytest.mark.parametrize("a", [TALL, SQUARE + 2.0 * np.eye(3)], ids=["tall", "square"])
def test_pinv_of_a_full_rank_matrix_differentiates_in_both_modes_and_twice(a):
    _check(pseudo_inverse, a)


def powers(a):
    return (np.sum(np.linalg.matrix_power(a, 3)) + np.sum(np.linalg.matrix_power(a, -2))
            + np.trace(np.linalg.matrix_power(a, 1)) + np.sum(np.linalg.matrix_power(a, 0)))


def test_matrix_power_positive_zero_and_negative_differentiates():
    _check(powers, 0.3 * SQUARE + np.eye(3))


def batched_power(a):
    return np.sum(np.linalg.matrix_power(a, 2) * np.linalg.matrix_power(a, -1))


def test_batched_matrix_power_differentiates():
    _check(batched_power, 0.3 * BATCH + np.eye(3))


def chain_with_vector_ends(a):
    v = np.arange(1.0, 5.0)
    return np.linalg.multi_dot([v, a, a.T, a, np.ones(3)]) + np.sum(
        np.linalg.multi_dot([a.T, a, a.T]) ** 2)


def test_multi_dot_with_vector_ends_differentiates_in_both_modes_and_twice():
    _check(chain_with_vector_ends, TALL)


# --- float32 -------------------------------------------------------------------------------------
def all_of_them(a):
    k = a @ a.T + np.diag(np.full(3, 2.0, dtype=a.dtype))
    return (np.sum(np.linalg.cholesky(k)) + np.sum(np.linalg.eigvalsh(k))
            + np.sum(np.linalg.svdvals(a)) + np.sum(np.linalg.pinv(a))
            + np.sum(np.linalg.matrix_power(k, -1)) + np.sum(np.linalg.multi_dot([a, a, a])))


def test_float32_in_gives_float32_gradient_and_tangent():
    a = SQUARE.astype(np.float32)
    sg.clear_cache()
    g = sg.grad(all_of_them)(a)
    assert g.dtype == np.float32
    _, t = sg.jvp(all_of_them)(a, np.ones_like(a))
    assert np.result_type(t) == np.float32
    np.testing.assert_allclose(g, sg.grad(all_of_them)(SQUARE), rtol=2e-3, atol=2e-3)
