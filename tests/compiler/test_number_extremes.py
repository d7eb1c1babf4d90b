"""Builtin ``max``/``min`` of Python floats computed as Python computes them
(``frontend/number_extremes.py``), and ``abs``'s tangent of a Python float written with
Python's comparisons (``backend/floats.py``): a scalar loop stays on Python floats, never
NumPy scalars. Every derivative is checked against central finite differences in reverse,
forward and second order."""

import math

import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def clamped(x, steps):
    y = x
    for _ in range(steps):
        y = min(max(x * y + 0.3, -1.0), 0.9) * 0.8 + 0.1 * math.sin(y)
    return y


def three_way(x):
    return max(x * x, 1.5 * x, 0.25) - min(x, 2.0 - x)


def folded(x, steps):
    y = x
    for _ in range(steps):
        y = x * math.cos(y) - 0.5 * abs(y)
    return y


def _check_every_mode(fn, args):
    want = numeric_gradient(fn, args, {}, 0)
    assert_close(sg.grad(fn)(*args), want)
    assert_close(sg.vjp(fn)(*args, 1.0), want)
    assert_close(sg.jvp(fn)(*args, 1.0)[1], want)
    assert_close(sg.grad(fn, optimize=False)(*args), want)
    assert_close(sg.grad(sg.grad(fn))(*args), numeric_hessian(sg.grad(fn), args),
                 rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, args", [(clamped, (0.6, 40)), (clamped, (-2.0, 5)),
                                      (three_way, (0.3,)), (three_way, (1.7,)),
                                      (three_way, (-0.4,)), (folded, (0.8, 30))],
                         ids=["clamped", "clamped-low", "three-mid", "three-high",
                              "three-low", "abs"])
def test_builtin_max_min_and_abs_of_floats_differentiate_in_every_mode(fn, args):
    _check_every_mode(fn, args)


def test_builtin_max_and_min_of_floats_are_comparisons_not_numpy_calls():
    for fn, args in ((clamped, (0.6, 40)), (three_way, (0.3,))):
        text = sg.source(sg.grad(fn), *args)
        assert "np.maximum" not in text and "np.minimum" not in text, text
        assert "np." not in text.split("def ", 1)[1], text
        assert type(sg.grad(fn)(*args)) is float


def test_builtin_max_of_floats_gives_pythons_value_and_type():
    def pick(x, y):
        return max(x, y) + min(y, x)

    for x, y in ((1.0, 2.0), (2.0, 1.0), (float("nan"), 1.0), (1.0, float("nan")),
                 (0.0, -0.0), (-0.0, 0.0)):
        value, _ = sg.jvp(pick, wrt=0)(x, y, 1.0)
        want = pick(x, y)
        assert type(value) is type(want)
        assert (math.isnan(value) and math.isnan(want)) or (
            value == want and math.copysign(1.0, value) == math.copysign(1.0, want))


def test_at_a_tie_the_derivative_is_the_one_of_the_item_python_returns():
    def tie(x):
        return max(x, 2.0 * x - 1.0)  # equal at x = 1: Python returns the first, x

    assert tie(1.0) == 1.0
    assert sg.grad(tie)(1.0) == 1.0
    assert sg.jvp(tie)(1.0, 1.0)[1] == 1.0
    assert_close(sg.grad(tie)(1.5), 2.0)  # (past the tie: the second item's slope)


def test_the_tangent_of_abs_of_a_float_is_a_python_float_without_numpy():
    text = sg.source(sg.grad(folded), 0.8, 30)
    assert "np.sign" not in text and "np." not in text.split("def ", 1)[1], text
    assert type(sg.grad(folded)(0.8, 30)) is float

    def kink(x):
        return abs(x - 0.5) * 3.0

    # abs'(0) = 0 (the kink table's convention), in both modes
    assert sg.grad(kink)(0.5) == 0.0 and sg.jvp(kink)(0.5, 1.0)[1] == 0.0
    assert sg.grad(kink)(0.7) == 3.0 and sg.grad(kink)(0.2) == -3.0
    assert math.isnan(sg.jvp(kink)(float("nan"), 1.0)[1])


def test_a_users_own_np_sign_of_a_float_keeps_numpys_type():
    import numpy as np

    def signed(x):
        return np.sign(x) * abs(x) + x

    value, tangent = sg.jvp(signed)(0.7, 1.0)
    assert type(value) is type(signed(0.7))
    assert_close(tangent, numeric_gradient(signed, (0.7,), {}, 0))
