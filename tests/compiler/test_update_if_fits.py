"""Updates of a fresh matrix in place when the other operand fits (``update_if_fits``).

``z = x @ W + b`` adds the bias into the product's array and ``r = z - y; r * 2.0``
updates ``r``: the passes prove the matrix fresh, unread elsewhere and of the result's
dtype; the shapes are checked as the code runs (``b`` may widen the product, ``(n, 1) +
(3,)``, and then a new array is made). These tests pin the values in every case the
check decides, and that the emitted code takes the in-place form only where it should.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import directional_derivative, numeric_gradient

import srcgrad as sg
from srcgrad.compiler.support import update_if_fits


def test_fits_writes_into_the_first_operand():
    a = np.arange(6.0).reshape(2, 3)
    out = update_if_fits(np.add, a, np.array([1.0, 2.0, 3.0]))
    assert out is a
    np.testing.assert_array_equal(out, [[1.0, 3.0, 5.0], [4.0, 6.0, 8.0]])


@pytest.mark.parametrize("b", [np.ones((3,)), np.ones((1, 3)), np.ones((2, 1)), np.ones(()),
                               np.ones((2, 3))])
def test_every_operand_that_broadcasts_into_the_matrix_fits(b):
    a = np.zeros((2, 3))
    assert update_if_fits(np.subtract, a, b) is a
    np.testing.assert_array_equal(a, -np.ones((2, 3)))


@pytest.mark.parametrize("b", [np.ones((2, 4)), np.ones((3, 2, 1)), np.ones((4, 1, 1))])
def test_an_operand_that_widens_the_matrix_makes_a_new_array(b):
    a = np.zeros((2, 1))
    out = update_if_fits(np.add, a, b)
    assert out is not a
    np.testing.assert_array_equal(a, np.zeros((2, 1)))  # (left as it was)
    np.testing.assert_array_equal(out, np.zeros((2, 1)) + b)


def dense_relu_sum(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    return np.sum((h @ W2 + b2 - y) ** 2)


def widening_bias(w, b, x):
    # x @ w is (n, 1); the bias (3,) widens it to (n, 3)
    return np.sum(np.tanh(x @ w + b) * 2.0)


def _point(dtype, rng=np.random.default_rng(0)):
    return [rng.standard_normal(s).astype(dtype)
            for s in [(3, 4), (4,), (4, 2), (2,), (5, 3), (5, 2)]]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_dense_layer_with_biases_has_the_right_gradient_and_updates_in_place(dtype):
    args = _point(dtype)
    g = sg.grad(dense_relu_sum, wrt=(0, 1, 2, 3))
    got = g(*args)
    text = sg.source(g, *args)
    assert "update_if_fits(np.add," in text and "update_if_fits(np.subtract," in text
    for i, dw in enumerate(got):
        assert dw.dtype == dtype and dw.shape == args[i].shape
        if dtype == np.float64:
            np.testing.assert_allclose(dw, numeric_gradient(dense_relu_sum, args, {}, i),
                                       rtol=1e-6, atol=1e-8)
    again = g(*args)  # (nothing of one call is written by the next)
    for a, b in zip(got, again):
        np.testing.assert_array_equal(a, b)


def test_a_bias_that_widens_the_product_gives_the_right_gradient():
    rng = np.random.default_rng(1)
    args = [rng.standard_normal((2, 1)), rng.standard_normal((3,)), rng.standard_normal((4, 2))]
    g = sg.grad(widening_bias, wrt=(0, 1))
    assert "update_if_fits(np.add," in sg.source(g, *args)
    for i, dw in enumerate(g(*args)):
        np.testing.assert_allclose(dw, numeric_gradient(widening_bias, args, {}, i),
                                   rtol=1e-6, atol=1e-8)


def test_a_float64_bias_on_a_float32_product_is_not_written_into_it():
    # NumPy promotes float32 + float64 to float64: writing into the float32 product
    # would round the value and the gradient to float32
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal((4, 3))
    x32, b = x.astype(np.float32), rng.standard_normal((2,))

    def f(w, b, x):
        return np.sum((x @ w + b) ** 2)

    value, grads = sg.value_and_grad(f, wrt=(0, 1))(w, b, x32)
    assert "update_if_fits" not in sg.source(sg.value_and_grad(f, wrt=(0, 1)), w, b, x32)
    assert np.asarray(value).dtype == np.float64 and value == f(w, b, x32)
    assert grads[1].dtype == np.float64


def sum_of_two_products(m, a):
    return np.sum(m @ a + m @ a.T)


def test_a_sum_of_two_nameless_products_stays_one_expression():
    # NumPy already writes the sum into the first product's temporary
    m = np.arange(9.0).reshape(3, 3)
    g = sg.grad(sum_of_two_products, wrt=1)
    text = sg.source(g, m, m)
    assert "update_if_fits" not in text
    np.testing.assert_allclose(g(m, m), numeric_gradient(sum_of_two_products, [m, m], {}, 1),
                               rtol=1e-6)


@pytest.mark.parametrize("fn, args", [
    (dense_relu_sum, _point(np.float64)),
    (widening_bias, [np.random.default_rng(3).standard_normal(s) for s in [(2, 1), (3,), (4, 2)]]),
], ids=["fits", "widens"])
def test_forward_mode_through_a_bias_matches_finite_differences(fn, args):
    rng = np.random.default_rng(4)
    tangent = rng.standard_normal(args[0].shape)
    value, derivative = sg.jvp(fn)(*args, tangent)
    assert value == pytest.approx(fn(*args))
    want = directional_derivative(fn, args, {0: tangent})
    np.testing.assert_allclose(derivative, want, rtol=1e-6, atol=1e-8)
