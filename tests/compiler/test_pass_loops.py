"""Loop and algebra passes: a value is saved on the tape once, a one-value tape pushes it bare,
simplification reaches loop bodies (``-(-a)`` is ``a``) and scalar factors are gathered
before they meet an array. Values match ``optimize=False`` and central finite differences.

``sg.grad`` of a function of one float runs in forward mode (``ad/tangent_grad.py``), so
the reverse sweep's passes are read from ``sg.vjp``'s code, which is always reverse mode."""

import math
import re

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import newton
from tests.fd import numeric_gradient


def scalar_loop(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y)
    return y


def _pushed(text: str) -> list[list[str]]:
    return [[item.strip() for item in m.group(1).strip("()").split(",") if item.strip()]
            for m in re.finditer(r"tape\.append\((.*)\)\n", text)]


def test_a_value_is_pushed_once():
    text = sg.source(sg.vjp(newton), 5.0, 1.0)
    pushes = _pushed(text)
    assert pushes and all(len(items) == len(set(items)) for items in pushes), text
    assert sg.grad(newton)(5.0) == pytest.approx(sg.grad(newton, optimize=False)(5.0),
                                                 rel=1e-12)
    assert sg.grad(newton)(5.0) == pytest.approx(
        float(numeric_gradient(newton, (5.0,), {}, 0)), rel=1e-6, abs=1e-6)


def test_no_double_negation_in_the_loop_body():
    text = sg.source(sg.vjp(newton), 5.0, 1.0)
    negated = dict(re.findall(r"(\w+) = -(\w+)\n", text))
    assert not any(src in negated for src in negated.values()), text


def test_one_saved_value_is_pushed_bare():
    text = sg.source(sg.vjp(scalar_loop), 0.5, 20, 1.0)
    assert "tape.append(y)" in text and "= tape.pop()" in text
    assert "(y,)" not in text and "y_2, =" not in text
    assert sg.grad(scalar_loop)(0.5, 20) == pytest.approx(
        sg.grad(scalar_loop, optimize=False)(0.5, 20), rel=1e-12)
    assert sg.grad(scalar_loop)(0.5, 20) == pytest.approx(
        float(numeric_gradient(scalar_loop, (0.5, 20), {}, 0)), rel=1e-6, abs=1e-6)


def scaled_twice(x):
    return np.mean((x - 1.0) ** 2)


def test_scalar_factors_meet_the_array_once():
    x = np.linspace(0.0, 2.0, 7)
    text = sg.source(sg.grad(scaled_twice), x)
    # (1/n) * 2, then that times (x - 1): one statement, the factor gathered first (the
    # array x - 1 dies there, so it is scaled in place: ``_t2 *= _t3 * 2.0``, the int
    # written as a float: passes/fold.py)
    assert re.search(r"= (\w+) \* 2\.0 \* (\w+)\n|\w+ \*= (\w+) \* 2\.0\n", text), text
    assert text.count(" * ") + text.count(" *= ") == 2, text
    np.testing.assert_allclose(sg.grad(scaled_twice)(x), 2.0 * (x - 1.0) / x.size)


def test_the_adjoint_loop_accumulator_is_named_after_the_variable():
    text = sg.source(sg.vjp(scalar_loop), 0.5, 20, 1.0)
    assert re.search(r"\n    dy = seed_of_shape\(seed, \(\)\)\n", text), text
    assert re.search(r"\n        dy = dy_\d+\n", text), text
    assert not re.search(r"\n    _t\d+ = seed", text), text


def test_the_gradient_of_a_function_of_one_float_carries_its_tangent_through_the_loop():
    """No tape, no reverse sweep, no per-operation shape call: the code a person writes."""
    text = sg.source(sg.grad(scalar_loop), 0.5, 20)
    assert "forward mode" in text and "tape." not in text and "reversed(" not in text, text
    assert "np.shape" not in text and ".shape" not in text and "rebroadcast" not in text, text
    for x in (0.3, 0.5, 0.9):
        got = sg.grad(scalar_loop)(x, 20)
        assert type(got) is float
        assert got == pytest.approx(sg.vjp(scalar_loop)(x, 20, 1.0), rel=1e-12)
        assert got == pytest.approx(float(numeric_gradient(scalar_loop, (x, 20), {}, 0)),
                                    rel=1e-6)


def branch_power(a, b):
    if a >= 0:
        return a ** b
    return (-a) ** b


@pytest.mark.parametrize("a, b", [(2.0, 1.5), (-2.0, -2.0), (-3.0, 0.5)])
def test_the_gradient_of_one_float_is_a_float_even_where_numpy_gives_a_0d_array(a, b):
    """The power rule's derivative w.r.t. the exponent goes through np.where, which returns
    a 0-d array for numbers: the forward-mode gradient is still cast to a Python float."""
    got = sg.grad(branch_power, wrt=1)(a, b)
    assert type(got) is float
    assert got == pytest.approx(float(numeric_gradient(branch_power, (a, b), {}, 1)), rel=1e-6)
