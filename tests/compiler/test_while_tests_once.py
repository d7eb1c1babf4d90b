"""A ``while`` loop's test runs once per trip (``backend/conditions.py``): written as the
user's one expression (``while a and b:``) when it can be, else as a chain of breaks, in
every mode; ``bool()`` is called on each operand at most once per trip, as the user's
loop does (on a lazy or device array each call is a compute or a synchronisation).
Values are checked against ``optimize=False`` and central finite differences."""

import re

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import newton
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian
from tests.foreign.devicearray import DeviceArray
from tests.foreign.programs import while_with_two_tests


def either_test(a):
    x = 1.0
    n = 0
    while (x < 10.0 or n < 3) and n < 40:
        x = x * a + 0.5
        n = n + 1
    return x


def shared_operand(a):
    """The two tests share ``abs(x)``: common-subexpression elimination makes it one value
    read twice, so the test cannot be one expression (it becomes a chain of breaks)."""
    x = 1.0
    n = 0
    while abs(x) < 50.0 and (abs(x) > 0.5 or n < 3):
        x = x * a + 1.0
        n = n + 1
    return x


PROGRAMS = [(newton, 5.0), (newton, 0.7), (either_test, 1.3), (either_test, 0.6),
            (shared_operand, 1.3), (shared_operand, -2.0)]
MODES = {
    "grad": (lambda f, **kw: sg.grad(f, **kw), lambda d, a: d(a)),
    "vjp": (lambda f, **kw: sg.vjp(f, **kw), lambda d, a: d(a, 1.0)),
    "jvp": (lambda f, **kw: sg.jvp(f, **kw), lambda d, a: d(a, 1.0)[1]),
}


def _source(fn, mode):
    make, _ = MODES[mode]
    return sg.source(make(fn), *((5.0,) if mode == "grad" else (5.0, 1.0)))


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("fn, a", PROGRAMS, ids=lambda p: getattr(p, "__name__", str(p)))
def test_a_while_test_with_and_or_differentiates(fn, a, mode):
    make, call = MODES[mode]
    got = call(make(fn), a)
    assert_close(got, call(make(fn, optimize=False), a), rtol=1e-12, atol=1e-12,
                 what="optimised vs literal")
    assert_close(got, numeric_gradient(fn, (a,), {}, 0))


@pytest.mark.parametrize("fn, a", PROGRAMS, ids=lambda p: getattr(p, "__name__", str(p)))
def test_a_while_test_with_and_or_differentiates_twice(fn, a):
    # differences of the first derivative (checked against differences of ``fn`` above)
    assert_close(sg.grad(sg.grad(fn))(a), numeric_hessian(sg.grad(fn), (a,)),
                 rtol=1e-5, atol=1e-5, what="second derivative")


@pytest.mark.parametrize("mode", list(MODES))
def test_a_while_test_with_and_is_written_as_the_users_expression(mode):
    text = _source(newton, mode)
    assert re.search(r"\n +while abs\(\w+\) >= 1e-10 and steps < 50:\n", text), text
    assert "while True" not in text and "break" not in text, text
    either = _source(either_test, mode)
    assert re.search(r"\n +while \(x\w* < 10\.0 or n < 3\) and n < 40:\n", either), either


@pytest.mark.parametrize("mode", list(MODES))
def test_a_test_that_reads_a_value_twice_breaks_on_each_operand(mode):
    text = _source(shared_operand, mode)
    loop = text[text.index("while True:"):]
    # one break per operand of `and`, the `or` nested under the false first operand
    assert loop.count("break") == 2 and "else:" not in loop.split("# line")[0], text


def _device_loop_shared(M):
    n = 0
    while np.sum(M ** 2) > 1.0 and (np.sum(M ** 2) < 1e6 or n < 2):
        M = M * 0.5
        n = n + 1
    return np.sum(np.sin(M))


def _tests_made(fn, M):
    """How often ``fn``'s own loop calls ``bool()`` on an array value, counted by running
    it on the counting array type."""
    DeviceArray.conversions = 0
    fn(DeviceArray(M))
    return DeviceArray.conversions


@pytest.mark.parametrize("fn", [while_with_two_tests, _device_loop_shared])
@pytest.mark.parametrize("mode", list(MODES))
def test_each_operand_of_a_while_test_is_tested_once_per_trip(fn, mode):
    M = np.random.default_rng(3).normal(size=(4, 3)) * 2.0
    want = _tests_made(fn, M)
    assert want > 2  # the loop runs several trips
    make, call = MODES[mode]
    seed = {"grad": None, "vjp": np.asarray(1.0), "jvp": np.ones_like(M)}[mode]
    derived = make(fn)
    DeviceArray.conversions = 0
    if seed is None:
        got = derived(DeviceArray(M))
    else:
        got = derived(DeviceArray(M), DeviceArray(seed))
        got = got[1] if mode == "jvp" else got
    assert DeviceArray.conversions == want
    expected = numeric_gradient(fn, (M,), {}, 0)
    if mode == "jvp":
        expected = directional_derivative(fn, (M,), {0: seed})
    assert_close(got.get(), expected)
