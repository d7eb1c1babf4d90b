"""sg.grad end to end on straight-line code: values and types of gradients."""

import math

import numpy as np
import pytest

import srcgrad as sg


def sin_sum(x):
    return np.sin(x * 3).sum()


def poly(x):
    return math.sin(x) * x ** 2


def two_args(x, y=2.0):
    z = np.sin(x) * y
    return z * x + y


def test_grad_of_sin_sum_matches_the_formula():
    x = np.array([0.1, 0.5, -0.3])
    np.testing.assert_allclose(sg.grad(sin_sum)(x), 3 * np.cos(3 * x))


def test_float_in_float_out():
    d = sg.grad(poly)(0.7)
    assert type(d) is float
    assert d == pytest.approx(math.cos(0.7) * 0.49 + math.sin(0.7) * 1.4)


def test_float32_stays_float32_and_0d_stays_0d():
    d32 = sg.grad(two_args)(np.array([0.5], dtype=np.float32))
    assert d32.dtype == np.float32
    d0 = sg.grad(two_args)(np.array(0.5))
    assert isinstance(d0, np.ndarray) and d0.shape == ()
    ds = sg.grad(two_args)(np.float32(0.5))
    assert type(ds) is np.float32


def test_tuple_wrt_and_keyword_default():
    dx, dy = sg.grad(two_args, wrt=(0, "y"))(0.3, y=1.5)
    assert dx == pytest.approx(2 * 1.5 * math.sin(0.3) * 0 + 1.5 * (math.sin(0.3)
                                                                    + 0.3 * math.cos(0.3)))
    assert dy == pytest.approx(math.sin(0.3) * 0.3 + 1)


def test_value_and_grad_returns_both():
    value, d = sg.value_and_grad(poly)(0.7)
    assert value == pytest.approx(poly(0.7))
    assert d == pytest.approx(sg.grad(poly)(0.7))


def test_decorator_forms():
    @sg.grad
    def d1(x):
        return x * x

    @sg.grad(wrt=1)
    def d2(x, y):
        return x * y

    assert d1(3.0) == 6.0
    assert d2(3.0, 5.0) == 3.0
