"""A loop-carried number that starts as a Python float and becomes a float64 NumPy scalar
(``y = 0.3`` then ``y = x * y`` with ``x`` an ``np.float64``) is typed ``NUMBER``: one
number of unknown kind (``ir/types.py``). Its derivative then does no shape work per
operation (no ``np.shape``/``rebroadcast`` per trip, nothing pushed for a shape), keeps
NumPy's semantics where the derivative code may divide by zero, and the values keep the
types the user's code gives them. Every derivative is checked against central finite
differences in reverse, forward and second order."""

import math

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def logistic(x, steps):
    y = 0.3
    for _ in range(steps):
        y = x * y * (1.0 - y) / (1.0 + 0.1 * y)
    return y


def sines(x, steps):
    y = 0.0
    for _ in range(steps):
        y = 0.5 * math.sin(y) + x * 0.25
    return y


def rooted(x):
    y = 0.0
    for _ in range(3):
        y = np.sqrt(y) * x + x
    return y


CASES = [(logistic, (np.float64(2.9), 30)), (sines, (np.float64(0.7), 20))]


@pytest.mark.parametrize("fn, args", CASES, ids=["logistic", "sines"])
def test_a_float_that_becomes_a_numpy_scalar_in_a_loop_differentiates(fn, args):
    want = numeric_gradient(fn, args, {}, 0)
    assert_close(sg.grad(fn)(*args), want)
    assert_close(sg.grad(fn, optimize=False)(*args), want)
    assert_close(sg.vjp(fn)(*args, 1.0), want)
    value, tangent = sg.jvp(fn)(*args, 1.0)
    assert_close(tangent, want)
    assert value == fn(*args) and type(value) is type(fn(*args))
    assert_close(sg.grad(sg.grad(fn))(*args), numeric_hessian(sg.grad(fn), args),
                 rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, args", CASES, ids=["logistic", "sines"])
def test_a_float_that_becomes_a_numpy_scalar_needs_no_shape_work_per_trip(fn, args):
    for make in (sg.grad, sg.vjp):
        text = sg.source(make(fn), *args, *((1.0,) if make is sg.vjp else ()))
        loops = text[text.index("    for "):]
        assert "np.shape" not in loops and "rebroadcast" not in loops, text


def test_the_derivative_at_a_zero_start_keeps_numpys_inf_and_nan():
    """``np.sqrt(0.0)``'s derivative divides by zero on the first trip (a Python float
    then; ``sqrt'(0) = inf`` times a zero tangent, the kink table's NaN): NumPy's nan, as
    without optimisation, never a ZeroDivisionError."""
    x = np.float64(0.7)
    with np.errstate(all="ignore"):
        got = sg.grad(rooted)(x)
        plain = sg.grad(rooted, optimize=False)(x)
    assert math.isnan(got) and math.isnan(plain)
