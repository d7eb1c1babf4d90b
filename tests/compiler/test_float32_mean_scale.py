"""A float32 loss's mean scale meets the residual as one number (issue 16, W3 in float32).

A float32 result's seed is ``np.float32(1.0)``, a NumPy scalar, so ``scalar_factors``
(``passes/simplify.py``) did not see ``np.float32(1.0) / n * (2 * r)`` as a scalar times a
scaled array and ran two passes over the residual. It now gathers the factors when the
NumPy scalar has the array's dtype (``2`` moved onto the float32 scalar rounds as before:
the gradient is bit-for-bit the unoptimised one), and keeps them apart otherwise."""

from __future__ import annotations

import re

import numpy as np
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(1618)


def mse(W, x, y):
    return np.mean((np.tanh(x @ W) - y) ** 2)


def half_sum_of_squares(W, x, y):
    return 0.5 * np.sum((np.tanh(x @ W) - y) ** 2)


def point():
    return tuple(rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (5, 4), (5, 3)))


def test_float32_mean_square_scales_the_residual_once_and_differentiates():
    args = point()
    text = sg.source(sg.grad(mse), *args)
    # the residual scaled once by one float32 factor (in place: the residual is a matrix)
    factor = r"np\.float32\(1\.0\) / reduced_count\(\w+\) \* 2(?:\.0)?"
    assert re.search(rf"{factor} \* \w+|\w+ \*= {factor}\n", text), text
    got = sg.grad(mse)(*args)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, sg.grad(mse, optimize=False)(*args))
    assert_close(got, numeric_gradient(mse, args, {}, 0), rtol=1e-3, atol=1e-4)


def test_float32_half_sum_of_squares_in_every_mode():
    args = point()
    text = sg.source(sg.grad(half_sum_of_squares), *args)
    assert re.search(r"np\.float32\(1\.0\) \* 0\.5 \* 2(?:\.0)? \* ", text), text
    want = numeric_gradient(half_sum_of_squares, args, {}, 0)
    got = sg.grad(half_sum_of_squares)(*args)
    np.testing.assert_array_equal(got, sg.grad(half_sum_of_squares, optimize=False)(*args))
    assert_close(got, want, rtol=1e-3, atol=1e-4, what="reverse")
    u = rng.standard_normal((4, 3))
    _, tangent = sg.jvp(half_sum_of_squares)(*args, u.astype(np.float32))
    assert_close(tangent, float(np.sum(want * u)), rtol=1e-3, atol=1e-4, what="forward")
    grad = sg.grad(half_sum_of_squares)
    hvp = directional_derivative(grad, args, {0: u}, eps=1e-3)
    assert_close(sg.jvp(grad)(*args, u.astype(np.float32))[1], hvp, rtol=2e-2, atol=2e-3,
                 what="forward over reverse")
