"""NumPy's symmetric decompositions read one triangle of their input (``eigh``/``eigvalsh``:
``UPLO``; ``cholesky``: the lower, or the upper with ``upper=True``). Their derivatives are
those of what NumPy computes, at a non-symmetric input and in non-symmetric directions:
compiler reverse (``sg.grad``), forward (``sg.jvp``) and second order (``sg.hessian``), and
NumPy's spellings on runtime Tensors, each against central differences (``tests/fd.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

_rng = np.random.default_rng(2026)
_N = 4
_B = _rng.uniform(-1.0, 1.0, (_N, _N))
_SPD = _B @ _B.T + np.diag(np.arange(1.0, _N + 1.0))  # distinct eigenvalues
_NOISE = _rng.uniform(-1.0, 1.0, (_N, _N))
# positive definite in the triangle read, unrelated numbers in the other: not symmetric
READS_LOWER = _SPD + np.triu(_NOISE, 1)
READS_UPPER = _SPD + np.tril(_NOISE, -1)
_W = _rng.standard_normal((_N, _N))
_V = _rng.standard_normal(_N)


def eigh_lower(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * w * _V) + np.sum(v * v * _W)


def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w * w * _V) + np.sum(v * v * _W)


def eigh_vectors_only(a):
    return np.sum(np.linalg.eigh(a)[1] ** 2 * _W)


def eigvalsh_lower(a):
    return np.sum(np.linalg.eigvalsh(a) ** 3 * _V)


def eigvalsh_upper(a):
    return np.sum(np.linalg.eigvalsh(a, UPLO="U") ** 3 * _V)


def cholesky_lower(a):
    return np.sum(np.linalg.cholesky(a) ** 2 * _W) + np.sum(np.log(np.diagonal(
        np.linalg.cholesky(a))))


def cholesky_upper(a):
    u = np.linalg.cholesky(a, upper=True)
    return np.sum(u ** 2 * _W) + np.sum(np.log(np.diagonal(u)))


def cholesky_batched(a):
    return np.sum(np.linalg.cholesky(a) ** 3)


CASES = [
    (eigh_lower, READS_LOWER), (eigh_upper, READS_UPPER), (eigh_vectors_only, READS_LOWER),
    (eigvalsh_lower, READS_LOWER), (eigvalsh_upper, READS_UPPER),
    (cholesky_lower, READS_LOWER), (cholesky_upper, READS_UPPER),
    (cholesky_batched, np.stack([READS_LOWER, READS_LOWER[::-1, ::-1].T + np.eye(_N)])),
]
IDS = [f.__name__ for f, _ in CASES]


def _directions(shape, count=3):
    rng = np.random.default_rng(7)
    return [rng.standard_normal(shape) for _ in range(count)]  # not symmetric


@pytest.mark.parametrize("f, a", CASES, ids=IDS)
def test_gradient_of_a_symmetric_decomposition_at_a_non_symmetric_input_is_numpys(f, a):
    sg.clear_cache()
    g = sg.grad(f)(a)
    assert_close(g, numeric_gradient(f, [a], None, 0), rtol=1e-5, atol=1e-6)
    for d in _directions(a.shape):
        assert_close(np.sum(g * d), directional_derivative(f, [a], {0: d}),
                     rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, a", CASES, ids=IDS)
def test_forward_mode_of_a_symmetric_decomposition_reads_the_tangent_as_numpy_does(f, a):
    sg.clear_cache()
    for d in _directions(a.shape):
        value, tangent = sg.jvp(f)(a, d)
        assert_close(value, f(a))
        assert_close(tangent, directional_derivative(f, [a], {0: d}), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, a", CASES[:-1], ids=IDS[:-1])
def test_hessian_of_a_symmetric_decomposition_at_a_non_symmetric_input_is_numpys(f, a):
    sg.clear_cache()
    grad = sg.grad(f)
    assert_close(grad(a), numeric_gradient(f, [a], None, 0), rtol=1e-5, atol=1e-6)
    assert_close(sg.hessian(f)(a), numeric_hessian(grad, [a]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f, a", CASES, ids=IDS)
def test_numpy_spelling_on_tensors_differentiates_what_numpy_computes(f, a):
    t = sg.tensor(a, requires_grad=True)
    f(t).backward()
    assert_close(t.grad.numpy(), numeric_gradient(f, [a], None, 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, a", CASES[:2] + CASES[5:7], ids=IDS[:2] + IDS[5:7])
def test_numpy_spelling_on_tensors_differentiates_twice_as_numpy_computes(f, a):
    t = sg.tensor(a, requires_grad=True)
    (g,) = sg.autograd.grad(f(t), [t], create_graph=True)
    d = _directions(a.shape, 1)[0]
    (h,) = sg.autograd.grad((g * sg.tensor(d)).sum(), [t])
    grad = sg.grad(f)
    assert_close(grad(a), numeric_gradient(f, [a], None, 0), rtol=1e-5, atol=1e-6)
    want = directional_derivative(grad, [a], {0: d})  # the Hessian is symmetric
    assert_close(h.numpy(), want, rtol=1e-4, atol=1e-5)


def test_gradient_is_zero_on_the_triangle_numpy_does_not_read():
    g_lower = sg.grad(eigh_lower)(READS_LOWER)
    g_upper = sg.grad(cholesky_upper)(READS_UPPER)
    assert np.all(np.triu(g_lower, 1) == 0.0) and np.any(np.tril(g_lower, -1) != 0.0)
    assert np.all(np.tril(g_upper, -1) == 0.0) and np.any(np.triu(g_upper, 1) != 0.0)
