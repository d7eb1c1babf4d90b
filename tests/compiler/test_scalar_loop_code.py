"""Scalar loops as a user writes them, emitted as cheaply as by hand (issue 16, W1/W4-like
versions): a ``not`` and a ``break`` flag on Python numbers are Python's ``not`` (not a
NumPy ``logical_not`` per trip), a ``while`` with a ``break`` never evaluates its test
again after the ``break`` (the user's loop does not), an ``if`` inside a loop writes the
loop's variables directly, and a ``math.*`` call on a float64 NumPy scalar stays the
``math`` call the user wrote. Every derivative is checked against central finite
differences in reverse, forward and second order."""

import math
import re

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import (
    assert_scalar_derivatives_in_every_mode,
)
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def lambert(a):
    w = 1.0
    steps = 0
    while steps < 100:
        e = math.exp(w)
        step = (w * e - a) / (e * (w + 1.0))
        w = w - step
        steps += 1
        if abs(step) < 1e-12:
            break
    return w


def converged_flag(a):
    w = 1.0
    done = False
    steps = 0
    while not done and steps < 100:
        w = w - 0.25 * (w * w - a)
        steps += 1
        done = abs(w * w - a) < 1e-12
    return w


def bisect_then_newton(a):
    lo = 0.0
    hi = 2.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - a > 0.0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    for _ in range(3):
        x = x - (x * x * x - a) / (3.0 * x * x)
    return x


def sine_loop(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y)
    return y


@pytest.mark.parametrize("fn, args", [(lambert, (3.0,)), (lambert, (0.4,)),
                                      (converged_flag, (2.0,)),
                                      (bisect_then_newton, (3.0,)),
                                      (bisect_then_newton, (0.2,))])
def test_scalar_while_loops_with_flags_and_branches_differentiate(fn, args):
    assert_scalar_derivatives_in_every_mode(fn, args)


@pytest.mark.parametrize("fn, arg, test", [
    # (the user's ``break`` is Python's own: no flag, see test_native_breaks.py)
    (lambert, 3.0, r"while steps < 100:"),
    (converged_flag, 2.0, r"while not done and steps < 100:")])
def test_a_flag_on_python_numbers_is_tested_with_pythons_not(fn, arg, test):
    for make, args in ((sg.grad, (arg,)), (sg.jvp, (arg, 1.0))):
        text = sg.source(make(fn), *args)
        assert "logical_" not in text, text
        assert re.search(test, text), text


def shrink(x):
    y = x
    while math.log(y) > -50.0:  # log of the last y (negative) would raise
        y = y * 0.5 - 0.1 * x
        if y < 0.0:
            break
    return y * x


def test_a_while_loop_does_not_test_its_condition_again_after_break():
    with pytest.raises(ValueError):
        math.log(0.5 * (1.0 * 0.5 - 0.1) * 0.5 - 0.1 - 0.05)  # what a test after it would
    assert_scalar_derivatives_in_every_mode(shrink, (1.0,))
    assert_scalar_derivatives_in_every_mode(shrink, (2.3,))


def test_an_if_in_a_loop_assigns_the_loop_variables_directly():
    text = sg.source(sg.grad(bisect_then_newton), 3.0)
    loop = text[text.index("    while "):]
    assert re.search(r"if mid \* mid \* mid - a > 0\.0:\n +hi = mid\n +else:\n +lo = mid\n",
                     loop), text
    assert "lo_1" not in text and "hi_1" not in text, text


def test_an_if_in_a_loop_that_reads_the_old_value_keeps_it():
    def swap_or_shift(x):
        a = x
        b = 1.0
        for k in range(6):
            if k % 2 == 0:
                a, b = b, a * x
            else:
                a = a + b * 0.5
        return a * b

    assert_scalar_derivatives_in_every_mode(swap_or_shift, (0.7,))


def test_math_calls_on_a_float64_scalar_stay_the_users_math_calls():
    x = np.float64(0.5)
    text = sg.source(sg.grad(sine_loop), x, 20)
    loop = text[text.index("    for "):]
    assert "np.sin" not in loop and "np.cos" not in loop, text
    assert "math.sin(y)" in loop and "math.cos(y)" in loop, text
    got = sg.grad(sine_loop)(x, 20)
    assert type(got) is np.float64
    assert_close(got, numeric_gradient(sine_loop, (x, 20), {}, 0))
    assert_close(sg.jvp(sine_loop)(x, 20, np.float64(1.0))[1],
                 numeric_gradient(sine_loop, (x, 20), {}, 0))
    assert_close(sg.grad(sg.grad(sine_loop))(x, 20),
                 numeric_hessian(sg.grad(sine_loop), (x, 20)), rtol=1e-5, atol=1e-5)


def test_numpy_calls_on_a_float64_scalar_keep_numpys_result_type():
    def f(x):
        return np.sin(x) * x

    x = np.float64(0.5)
    assert "np.sin" in sg.source(sg.value_and_grad(f), x)
    value, grad = sg.value_and_grad(f)(x)
    assert type(value) is np.float64 and value == f(x)
    assert_close(grad, numeric_gradient(f, (x,), {}, 0))


def test_math_on_a_float64_scalar_still_raises_where_the_users_code_raises():
    def f(x):
        return math.log(x) * x

    with pytest.raises(ValueError):
        f(np.float64(-1.0))
    with pytest.raises(ValueError):
        sg.grad(f)(np.float64(-1.0))
