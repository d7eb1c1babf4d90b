"""The user's ``y ** 2`` of a Python float is printed ``y ** 2.0`` (``backend/floats.py``):
the same ``pow`` call with the same double, a faster path through CPython. The user's
values and exceptions stay bit for bit; an int or NumPy base keeps its int exponent."""

import math
import random
import struct
import sys

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient


def square_loop(x):
    y = 0.0
    for _ in range(20):
        y = x - 0.3 * y ** 2
    return y


def cube_loop(x):
    y = 0.0
    for _ in range(20):
        y = x - 0.1 * y ** 3
    return y


def inverse_power(x):
    return x ** -2 + x * 2 ** 3


def int_base(x, n):
    return x * n ** 2


def test_a_float_bases_int_exponent_prints_as_a_float():
    assert "        y = x - 0.3 * y ** 2.0\n" in sg.source(sg.grad(square_loop), 0.9)
    assert "        y = x - 0.1 * y ** 3.0\n" in sg.source(sg.grad(cube_loop), 0.7)
    text = sg.source(sg.value_and_grad(inverse_power), 1.5)
    assert "x ** -2.0" in text, text


def test_an_int_or_numpy_base_keeps_its_exponent():
    text = sg.source(sg.value_and_grad(int_base), 1.5, 3)
    assert "n ** 2\n" in text or "n ** 2 " in text, text
    value, grad = sg.value_and_grad(int_base)(1.5, 3)
    assert value == 13.5 and grad == 9 and type(grad) is float
    text = sg.source(sg.grad(square_loop), np.float64(0.9))
    assert "y ** 2\n" in text and "2.0\n" not in text.split("y ** ")[-1], text


@pytest.mark.parametrize("fn, x", [(square_loop, 0.9), (square_loop, -0.5),
                                   (cube_loop, 0.7), (inverse_power, 1.5)])
def test_values_and_derivatives_are_unchanged(fn, x):
    assert_close(sg.grad(fn)(x), numeric_gradient(fn, (x,), {}, 0))
    got = sg.value_and_grad(fn)(x)[0]
    assert struct.pack("d", got) == struct.pack("d", fn(x))  # the user's value, bit for bit
    assert_close(sg.grad(fn)(x), sg.grad(fn, optimize=False)(x), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("x", [1e200, -1e160, 1e155])
def test_the_users_overflow_error_is_raised_as_before(x):
    with pytest.raises(OverflowError) as want:
        square_loop(x)
    with pytest.raises(OverflowError) as got:
        sg.value_and_grad(square_loop)(x)
    assert str(got.value) == str(want.value) == "(34, 'Numerical result out of range')"


@pytest.mark.parametrize("x", [math.inf, -math.inf, math.nan, 0.0, -0.0, 5e-324])
def test_edges_are_the_users(x):
    want = square_loop(x)
    got = sg.value_and_grad(square_loop)(x)[0]
    assert struct.pack("d", got) == struct.pack("d", want) or (math.isnan(got)
                                                               and math.isnan(want))


def _outcome(f):
    try:
        r = f()
    except ArithmeticError as e:
        return type(e), str(e)
    return type(r), struct.pack("d", r) if type(r) is float else r


def test_an_int_exponent_is_its_double_bit_for_bit():
    # the claim the printing rests on: float ** n and float ** float(n) are one computation
    rng = random.Random(5)
    values = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
              for _ in range(5000)]
    values += [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324,
               sys.float_info.max, -sys.float_info.max, 1.4e154, -1.4e154, 1e-200]
    for n in (2, 3, -1, -2, 0, 1, 5):
        for y in values:
            assert _outcome(lambda: y ** n) == _outcome(lambda: y ** float(n)), (y, n)
