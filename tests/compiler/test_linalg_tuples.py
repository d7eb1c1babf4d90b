"""NumPy's tuple-returning linear algebra through the compiler (``rules/linalg_tuples.py``):
``w, V = np.linalg.eigh(A)``, ``U, s, Vt = np.linalg.svd(A, full_matrices=False)``,
``Q, R = np.linalg.qr(A)``, ``sign, logdet = np.linalg.slogdet(A)``, in reverse and forward
mode and at second order against central differences; the forms srcgrad cannot
differentiate refused with advice."""

from __future__ import annotations

import numpy as np
import pytest
from fd import numeric_gradient, numeric_hessian

import srcgrad as sg

rng = np.random.default_rng(14)
SQUARE = rng.uniform(-1.0, 1.0, (3, 3))
TALL = rng.uniform(-1.0, 1.0, (4, 3))
BATCH = rng.uniform(-1.0, 1.0, (2, 4, 3))


def _check(f, x, hessian=True):
    sg.clear_cache()
    want = numeric_gradient(f, [x], {}, 0)
    np.testing.assert_allclose(sg.grad(f)(x), want, rtol=1e-6, atol=1e-7)
    u = np.random.default_rng(2).standard_normal(np.shape(x))
    _, t = sg.jvp(f)(x, u)
    np.testing.assert_allclose(t, np.sum(want * u), rtol=1e-6, atol=1e-7)
    if hessian:
        n = np.size(x)
        np.testing.assert_allclose(np.reshape(sg.hessian(f)(x), (n, n)),
                                   np.reshape(numeric_hessian(sg.grad(f), [x]), (n, n)),
                                   rtol=1e-5, atol=1e-6)


def eigh_of_gram(b):
    w, V = np.linalg.eigh(b @ np.swapaxes(b, -1, -2) + np.diag([1.0, 2.0, 3.0]))
    # a function of the vectors that does not depend on their signs
    return np.sum(w ** 2) + np.sum(V[..., 0, :] ** 2 * w) + np.sum(np.abs(V[..., 1, 2]))


@pytest.mark.parametrize("b", [SQUARE, BATCH[:, :3]], ids=["matrix", "batched"])
def test_eigh_unpacked_into_values_and_vectors_differentiates(b):
    _check(eigh_of_gram, b)


def eigh_fields(b):
    result = np.linalg.eigh(b @ b.T + np.eye(3), UPLO="U")
    return np.sum(result.eigenvalues) * np.sum(result.eigenvectors[:, -1] ** 2)


def test_eigh_named_fields_and_upper_triangle_differentiate():
    _check(eigh_fields, SQUARE)


def slogdet_pair(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet + np.linalg.slogdet(a)[1] ** 2


@pytest.mark.parametrize("a", [SQUARE + 2.0 * np.eye(3), (SQUARE + 2.0 * np.eye(3))[[1, 0, 2]]],
                         ids=["positive", "negative-determinant"])
def test_slogdet_sign_and_logabsdet_differentiate(a):
    _check(slogdet_pair, a)


def batched_logdet(a):
    return np.sum(np.linalg.slogdet(a).logabsdet)


def test_batched_slogdet_differentiates():
    _check(batched_logdet, BATCH[:, :3] + 2.0 * np.eye(3))


def qr_parts(a):
    q, r = np.linalg.qr(a)
    # Q and R's signs go together (Q R = A): use them as products that keep them
    return np.sum(q[..., :, 0:1] * r[..., 0:1, :]) + np.sum(np.linalg.qr(a, mode="r") ** 2)


@pytest.mark.parametrize("a", [TALL, SQUARE, BATCH], ids=["tall", "square", "batched"])
def test_qr_unpacked_differentiates(a):
    _check(qr_parts, a)


def thin_svd(a):
    U, s, Vt = np.linalg.svd(a, full_matrices=False)
    return np.sum(U[..., :, 0:1] * Vt[..., 0:1, :] * s[..., 0:1, None]) + np.sum(s ** 3)


@pytest.mark.parametrize("a", [TALL, TALL.T, BATCH], ids=["tall", "wide", "batched"])
def test_thin_svd_unpacked_differentiates(a):
    _check(thin_svd, a)


def full_svd_of_square(a):
    U, s, Vt = np.linalg.svd(a)
    return np.sum((U * s[None, :]) @ Vt * a) + np.sum(np.linalg.svd(a, compute_uv=False))


def test_full_svd_of_a_square_matrix_differentiates():
    _check(full_svd_of_square, SQUARE)


def full_svd_vectors(a):
    U, s, Vt = np.linalg.svd(a)
    return np.sum(U ** 3)


def full_svd_values_only(a):
    U, s, Vt = np.linalg.svd(a)
    return np.sum(s)


def test_full_svd_of_a_non_square_matrix_is_refused_where_its_vectors_are_used():
    sg.clear_cache()
    with pytest.raises(ValueError, match="full_matrices=False") as e:
        sg.grad(full_svd_vectors)(TALL)
    assert "test_linalg_tuples.py" in "".join(getattr(e.value, "__notes__", [])) + str(e.value)
    # the values alone are fine
    _check(full_svd_values_only, TALL, hessian=False)


def wide_qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(r)


def test_qr_of_a_wide_matrix_is_refused_with_advice():
    sg.clear_cache()
    with pytest.raises(ValueError, match=r"np\.linalg\.qr of a 3x4 matrix.*a\.T"):
        sg.grad(wide_qr)(TALL.T)


def complete_qr(a):
    q, r = np.linalg.qr(a, mode="complete")
    return np.sum(r)


def hermitian_svd(a):
    return np.sum(np.linalg.svd(a, hermitian=True)[1])


@pytest.mark.parametrize("f, message", [(complete_qr, "mode='complete'"),
                                        (hermitian_svd, "hermitian=True")])
def test_unsupported_modes_are_refused_at_compile_time_naming_the_line(f, message):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError, match=r"test_linalg_tuples\.py:\d+: ") as e:
        sg.grad(f)(TALL)
    assert message in str(e.value)


def gp_with_eigh(theta):
    # a Gaussian-process style log determinant through the eigenvalues, the fit through the
    # vectors (a function of V V^T: sign-free)
    x = np.linspace(0.0, 1.0, 4)
    k = np.exp(theta[0]) * np.exp(-(x[:, None] - x[None, :]) ** 2 / np.exp(theta[1]))
    w, V = np.linalg.eigh(k + 0.5 * np.eye(4))
    y = np.sin(3.0 * x)
    z = V.T @ y
    return 0.5 * np.sum(z * z / w) + 0.5 * np.sum(np.log(w))


def test_eigh_in_a_gaussian_process_likelihood_differentiates():
    _check(gp_with_eigh, np.array([0.2, -0.7]))
