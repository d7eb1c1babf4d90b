"""A derivative raises where the user's function raises, though it does not need the value
that raised (``passes/rewrite.may_raise``): the user's own Python arithmetic that may raise
on its operands (a ``math.*`` call, ``/``, ``%``, ``//`` or ``**`` on Python numbers) stays
in the emitted code when nothing reads it, in every transform and through loops, branches
and second order. srcgrad's own derivative code is not kept that way, and neither is the
user's arithmetic that cannot raise (a root, a division by a non-zero constant)."""

import math

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close


def log_plus_line(a):
    return math.log(a) + 2.0 * a  # the gradient is 1/a + 2: it reads a, never the log


def quotient_times_zero(a, b):
    return (a / b) * 0 + a  # the product's adjoint reads b, the quotient is unread


def summed_logs(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += math.log(x[i]) + x[i] * x[i]
    return total


def logs_in_a_branch(x, a):
    if a > 0.0:
        y = math.sqrt(x) * 0.0 + a * x
    else:
        y = a * x
    return y


def powers_in_a_while(x):
    y = x
    while y < 100.0:
        y = y * 2.0 + (y ** 2) * 0.0  # (y ** 2 overflows on a huge y)
    return y


def function_raises(f, *args):
    try:
        f(*args)
    except (ValueError, ZeroDivisionError, OverflowError) as e:
        return type(e)
    return None


SCALAR_CASES = [
    (log_plus_line, (-1.0,), ValueError),
    (log_plus_line, (0.0,), ValueError),
    (quotient_times_zero, (1.0, 0.0), ZeroDivisionError),
    (logs_in_a_branch, (-4.0, 1.0), ValueError),
    (powers_in_a_while, (1e200,), None),  # y >= 100: the loop does not run
]


@pytest.mark.parametrize("f, args, error", SCALAR_CASES,
                         ids=[f"{c[0].__name__}-{c[1]}" for c in SCALAR_CASES])
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vjp", "jvp", "grad_of_grad"])
def test_scalar_derivatives_raise_where_the_function_raises(f, args, error, transform):
    assert function_raises(f, *args) is error
    if transform == "grad":
        d = sg.grad(f)
    elif transform == "value_and_grad":
        d = sg.value_and_grad(f)
    elif transform == "vjp":
        d = sg.vjp(f)
        args = (*args, 1.0)
    elif transform == "jvp":
        d = sg.jvp(f)
        args = (*args, 1.0)
    else:
        d = sg.grad(sg.grad(f))
    if error is None:
        d(*args)
        return
    # (the user's exception, or one from a derivative formula singular at the same point
    # and run first: log's 1/a at a == 0 divides by zero before math.log(0.0) raises)
    with pytest.raises((ValueError, ZeroDivisionError, OverflowError)):
        d(*args)


@pytest.mark.parametrize("transform", ["grad", "hessian", "value_and_grad"])
def test_array_loops_raise_at_a_negative_element(transform):
    x = np.array([1.0, -2.0, 3.0])
    d = getattr(sg, transform)(summed_logs)
    with pytest.raises(ValueError, match="math domain error"):
        d(x)
    good = np.array([1.0, 2.0, 3.0])
    if transform == "hessian":
        assert_close(d(good), np.diag(-1.0 / good ** 2 + 2.0), rtol=1e-12, atol=0)
    elif transform == "grad":
        assert_close(d(good), 1.0 / good + 2.0 * good, rtol=1e-12, atol=0)


def test_the_unread_user_op_is_in_the_emitted_code_and_derivative_code_is_not():
    text = sg.source(sg.grad(log_plus_line), 2.0)
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    assert any("math.log(a)" in line for line in code), text
    assert sg.grad(log_plus_line)(2.0) == 2.5


def nothing_can_raise(a):
    return (a + 1.0) ** 0.5 * 0.0 + (a / 2.0) * 0.0 + (a % 3.0) * 0.0 + a


def test_user_arithmetic_that_cannot_raise_is_still_dropped():
    # a root cannot overflow; dividing by a non-zero constant gives inf or nan, never raises
    text = sg.source(sg.grad(nothing_can_raise), 2.0)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "/ 2.0" not in code and "% 3.0" not in code, text
    assert sg.grad(nothing_can_raise)(2.0) == 1.0


def numpy_logs(a):
    return np.log(a) * 0.0 + 2.0 * a  # NumPy's log gives nan with a warning: no raise


def test_numpy_calls_keep_numpy_semantics():
    with np.errstate(invalid="ignore"):
        assert np.isnan(numpy_logs(-1.0))
        assert sg.grad(numpy_logs)(-1.0) == 2.0 or np.isnan(sg.grad(numpy_logs)(-1.0))
    text = sg.source(sg.grad(numpy_logs), 2.0)
    assert "math.log" not in text


@sg.checkpoint
def checkpointed_step(a):
    return math.log(a) * a


def uses_a_checkpoint(a):
    return checkpointed_step(a) + math.exp(a) * 0.0


def test_a_checkpointed_call_raises_once_in_its_forward_pass():
    assert_close(sg.grad(uses_a_checkpoint)(2.0), math.log(2.0) + 1.0, rtol=1e-12, atol=0)
    with pytest.raises(ValueError):
        sg.grad(uses_a_checkpoint)(-2.0)
    with pytest.raises(OverflowError):
        sg.grad(uses_a_checkpoint)(1000.0)


def newton_with_abs_test(a):
    y, delta = a, 1.0
    while abs(delta) > 1e-12:  # (abs never raises: its peeled first test is not kept)
        delta = (y * y - a) / (2.0 * y)
        y = y - delta
    return y + math.atan(a) * 0.0


def kepler(m):
    big, delta = m, 1.0
    while abs(delta) > 1e-13:
        f = big - 0.3 * math.sin(big) - m
        fp = 1.0 - 0.3 * math.cos(big)  # the same cos as sin's tangent: computed once
        delta = f / fp
        big = big - delta
    return big


def test_math_calls_that_never_raise_are_dropped_and_shared_ones_computed_once():
    text = sg.source(sg.grad(newton_with_abs_test), 7.0)
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    assert not any(line.endswith("= abs(delta)") for line in code), text
    assert "math.atan(a)" not in "\n".join(code), text
    text = sg.source(sg.grad(kepler), 1.2)
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    loop = "\n".join(code[next(k for k, line in enumerate(code) if line.startswith("while")):])
    assert loop.count("math.cos(big)") == 1, text
    with pytest.raises(ValueError):
        sg.grad(kepler)(math.inf)
