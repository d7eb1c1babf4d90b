"""A sigmoid written out, ``h = 1.0 / (1.0 + np.exp(-z))``, has its adjoint's division by
``1.0 + e`` written as a product with ``h`` (``passes/quotients.py``): ``dh * h * h * e``,
one division fewer and ``1.0 + e`` no longer kept for the reverse sweep. Only where the
divisor is ``c + exp(w)`` with a constant ``c >= 1`` (its reciprocal then neither
overflows nor is subnormal); the values match the unoptimised gradient to rounding, at
special values too, in every mode."""

from __future__ import annotations

import re

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(4242)


def sigmoid_loss(z):
    h = 1.0 / (1.0 + np.exp(-z))
    return np.sum(h * h)


def sigmoid_layers(W, x):
    h = x
    for _ in range(2):
        h = 1.0 / (1.0 + np.exp(-(h @ W)))
    return np.mean(h ** 2)


def half_offset(z):
    h = 1.0 / (0.5 + np.exp(-z))  # 0.5 + e may be tiny: its reciprocal may overflow
    return np.sum(h * h)


def no_exp(z):
    u = 1.0 + z * z
    h = 1.0 / u
    return np.sum(h * np.sin(u))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sigmoid_adjoint_multiplies_by_the_reciprocal(dtype):
    z = rng.standard_normal((4, 3)).astype(dtype)
    text = sg.source(sg.grad(sigmoid_loss), z)
    assert re.search(r"\w+ \* h \* h \* \w+", text), text
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert sum(" / " in line for line in code) == 1, text  # (the forward's own division)
    got = sg.grad(sigmoid_loss)(z)
    plain = sg.grad(sigmoid_loss, optimize=False)(z)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, plain, rtol=8 * np.finfo(dtype).eps, atol=0)


def test_sigmoid_at_special_values_matches_the_unoptimised_gradient():
    z = np.array([0.0, -0.0, 1e-30, 50.0, -50.0, 700.0, -700.0, 800.0, -800.0,
                  np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"):
        got = sg.grad(sigmoid_loss)(z)
        plain = sg.grad(sigmoid_loss, optimize=False)(z)
    np.testing.assert_allclose(got, plain, rtol=1e-15, atol=0, equal_nan=True)
    z32 = z.astype(np.float32)
    with np.errstate(all="ignore"):
        got = sg.grad(sigmoid_loss)(z32)
        plain = sg.grad(sigmoid_loss, optimize=False)(z32)
    np.testing.assert_allclose(got, plain, rtol=1e-6, atol=0, equal_nan=True)


def test_sigmoid_of_a_0d_array_and_in_every_mode():
    check_all_modes(sigmoid_loss, rng.standard_normal(5))
    z = np.array(0.3)
    got = sg.grad(sigmoid_loss)(z)
    assert type(got) is np.ndarray and got.shape == ()
    np.testing.assert_allclose(got, sg.grad(sigmoid_loss, optimize=False)(z), rtol=1e-15)


def test_sigmoid_in_a_loop_differentiates():
    W = rng.standard_normal((3, 3))
    x = rng.standard_normal((4, 3))
    got = sg.grad(sigmoid_layers)(W, x)
    np.testing.assert_allclose(got, sg.grad(sigmoid_layers, optimize=False)(W, x),
                               rtol=1e-13, atol=1e-17)


def test_other_divisors_keep_their_division():
    z = rng.standard_normal(5)
    for fn in (half_offset, no_exp):
        text = sg.source(sg.grad(fn), z)
        assert not re.search(r"\* h \* h", text), text
        np.testing.assert_allclose(sg.grad(fn)(z), sg.grad(fn, optimize=False)(z),
                                   rtol=1e-14)
    check_all_modes(half_offset, z)


def gate_and_ratio(z, g):
    u = 1.0 + np.exp(-z)
    h = 1.0 / u
    r = g / u  # the user's own quotient: computed as written, not as g * h
    return np.sum(h * r)


def test_a_users_own_quotient_by_the_denominator_stays_a_division():
    z = rng.standard_normal(1000)
    g = rng.standard_normal(1000)
    value, grad = sg.value_and_grad(gate_and_ratio)(z, g)
    u = 1.0 + np.exp(-z)
    assert value == np.sum((1.0 / u) * (g / u))
    assert value != np.sum((1.0 / u) * (g * (1.0 / u)))  # (the point tells them apart)
    np.testing.assert_allclose(grad, sg.grad(gate_and_ratio, optimize=False)(z, g),
                               rtol=1e-14)
