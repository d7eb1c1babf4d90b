"""``np.linalg.norm`` through the compiler: every vector order and every matrix order NumPy
defines, with ``axis`` and ``keepdims``, in reverse and forward mode and at second order
(against central differences, the SVD norms' second derivatives through the SVD's item
rules too); orders NumPy does not define refused at compile time naming the user's line."""

from __future__ import annotations

import numpy as np
import pytest
from fd import numeric_gradient, numeric_hessian

import srcgrad as sg

rng = np.random.default_rng(42)
VECTOR = rng.uniform(-2.0, 2.0, 6)
MATRIX = rng.uniform(-2.0, 2.0, (4, 3))
BATCH = rng.uniform(-2.0, 2.0, (2, 4, 3))
WEIGHTS = rng.uniform(0.5, 1.5, 4)


def make(ord, axis=None, keepdims=False):
    def norm_of(x):
        n = np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
        return np.sum(n * np.sum(x))  # a product rule on top: not linear in the norm
    return norm_of


def _check_both_modes(f, x):
    sg.clear_cache()
    want = numeric_gradient(f, [x], {}, 0)
    np.testing.assert_allclose(sg.grad(f)(x), want, rtol=1e-6, atol=1e-6)
    u = np.random.default_rng(1).standard_normal(x.shape)
    _, t = sg.jvp(f)(x, u)
    np.testing.assert_allclose(t, np.sum(want * u), rtol=1e-6, atol=1e-6)


def _check_hessian(f, x):
    sg.clear_cache()
    h = sg.hessian(f)(x)
    flat = x.ravel()
    for k in range(flat.size):
        def component(v, k=k):
            return sg.grad(f)(v).ravel()[k]
        want = numeric_gradient(component, [x], {}, 0)
        np.testing.assert_allclose(h.reshape(flat.size, -1)[k], want.ravel(), rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("ord", [None, 1, 2, 3, 4, 0.5, 1.5, -1, -2.5, np.inf, -np.inf])
def test_vector_norm_of_every_order_differentiates_in_both_modes(ord):
    _check_both_modes(make(ord), VECTOR)


@pytest.mark.parametrize("ord, axis, keepdims", [
    (3, 1, False), (3, 0, True), (np.inf, -1, True), (-np.inf, 0, False), (1, (1,), False),
    (0.5, 1, False),
])
def test_vector_norm_along_an_axis_differentiates_in_both_modes(ord, axis, keepdims):
    _check_both_modes(make(ord, axis, keepdims), MATRIX)


def test_vector_zero_norm_counts_nonzeros_and_has_zero_gradient():
    def count(x):
        return np.linalg.norm(x, ord=0) * np.sum(x * x)
    # d/dx [c * sum(x^2)] with the count c constant: 2 c x
    np.testing.assert_allclose(sg.grad(count)(VECTOR), 2 * 6 * VECTOR)
    _check_both_modes(count, VECTOR)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm_of_every_order_differentiates_in_both_modes(ord):
    _check_both_modes(make(ord), MATRIX)


@pytest.mark.parametrize("ord, axis, keepdims", [
    ("nuc", (2, 1), False), (2, (1, 2), True), (-2, (-1, -2), False), (1, (0, 2), True),
    (np.inf, (2, 0), False), ("fro", (0, 1), True),
])
def test_batched_matrix_norm_with_axis_pair_and_keepdims_differentiates(ord, axis, keepdims):
    _check_both_modes(make(ord, axis, keepdims), BATCH)


@pytest.mark.parametrize("ord, x", [
    (3, VECTOR), (0.5, np.abs(VECTOR) + 0.1), (np.inf, VECTOR), (1, VECTOR), (None, VECTOR),
    ("fro", MATRIX), (1, MATRIX), (-np.inf, MATRIX),
], ids=lambda v: repr(v) if not isinstance(v, np.ndarray) else f"{v.ndim}d")
def test_norm_second_order_matches_finite_differences(ord, x):
    _check_hessian(make(ord), x)


def weighted_cubic_norm(x):
    return np.linalg.norm(x * WEIGHTS, ord=3)


_cubic_norm_gradient = sg.grad(weighted_cubic_norm)


def sum_of_cubic_norm_gradient(x):
    return np.sum(_cubic_norm_gradient(x))


def test_cubic_norm_reverse_over_reverse_matches_forward_over_reverse():
    sg.clear_cache()
    h = sg.hessian(weighted_cubic_norm)(VECTOR[:4])
    np.testing.assert_allclose(sg.grad(sum_of_cubic_norm_gradient)(VECTOR[:4]), h.sum(axis=0),
                               rtol=1e-10, atol=1e-12)


def spectral(x):
    return np.linalg.norm(x, ord=2)


def nuclear(x):
    return np.linalg.norm(x, "nuc")


def smallest_singular(x):
    return np.linalg.norm(x, ord=-2) * np.sum(x)


@pytest.mark.parametrize("f", [spectral, nuclear, smallest_singular])
def test_second_derivative_of_svd_norm_matches_finite_differences(f):
    _check_hessian(f, MATRIX)


@pytest.mark.parametrize("f", [spectral, nuclear])
def test_svd_norm_forward_over_reverse_matches_finite_differences(f):
    sg.clear_cache()
    u = np.random.default_rng(5).standard_normal(MATRIX.shape)
    _, t = sg.jvp(sg.grad(f))(MATRIX, u)
    h = numeric_hessian(sg.grad(f), [MATRIX])
    np.testing.assert_allclose(t, np.tensordot(h, u, axes=2), rtol=1e-5, atol=1e-6)


def matrix_with_cubic_order(x):
    return np.linalg.norm(x, ord=3)


def vector_with_fro(x):
    return np.linalg.norm(x, ord="fro")


def three_d_with_order(x):
    return np.linalg.norm(x, 1)


def nuclear_along_one_axis(x):
    return np.sum(np.linalg.norm(x, "nuc", axis=0))


@pytest.mark.parametrize("f, x, message", [
    (matrix_with_cubic_order, MATRIX, "3 is not a matrix norm order"),
    (vector_with_fro, VECTOR, "'fro' is not a vector norm order"),
    (three_d_with_order, BATCH, "on a 3-d array: NumPy needs a 1-d or 2-d array"),
    (nuclear_along_one_axis, MATRIX, "'nuc' is not a vector norm order"),
])
def test_norm_order_numpy_does_not_define_is_refused_at_compile_time_naming_the_line(
        f, x, message):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError, match=r"test_norms\.py:\d+: np\.linalg\.norm") as e:
        sg.grad(f)(x)
    assert message in str(e.value)


class _Subclass(np.ndarray):
    """An ndarray subclass: its abstract type is "other", ndim unknown when compiling."""


def cubic_norm(x):
    return np.linalg.norm(x * 2.0, ord=3)


def nuclear_norm_unknown(x):
    return np.linalg.norm(x * 2.0, ord="nuc")


@pytest.mark.parametrize("f, x", [(cubic_norm, VECTOR), (nuclear_norm_unknown, MATRIX)])
def test_norm_of_value_whose_ndim_is_unknown_when_compiling_decides_at_run_time(f, x):
    other = x.view(_Subclass)
    sg.clear_cache()
    want = numeric_gradient(f, [x], {}, 0)
    np.testing.assert_allclose(np.asarray(sg.grad(f)(other)), want, rtol=1e-6, atol=1e-6)
    u = np.random.default_rng(3).standard_normal(x.shape)
    _, t = sg.jvp(f)(other, u.view(_Subclass))
    np.testing.assert_allclose(float(np.asarray(t)), np.sum(want * u), rtol=1e-6, atol=1e-6)
    assert "norm_gradient(" in sg.source(sg.grad(f), other)


_nuclear_gradient = sg.grad(nuclear)


def sum_of_nuclear_gradient(x):
    return np.sum(_nuclear_gradient(x))


def test_reverse_over_reverse_through_svd_norm_matches_the_hessian():
    sg.clear_cache()
    h = sg.hessian(nuclear)(MATRIX)
    np.testing.assert_allclose(sg.grad(sum_of_nuclear_gradient)(MATRIX), h.sum(axis=(0, 1)),
                               rtol=1e-9, atol=1e-12)
