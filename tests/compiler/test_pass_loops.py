"""Loop and algebra passes: a value is saved on the tape once, a one-value tape pushes it bare,
simplification reaches loop bodies (``-(-a)`` is ``a``) and scalar factors are gathered
before they meet an array. Values match ``optimize=False`` and central finite differences."""

import math
import re

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import numeric_gradient


def newton(a):
    x = 1.0
    delta = 1.0
    steps = 0
    while abs(delta) >= 1e-10 and steps < 50:
        fx = x - math.cos(a * x)
        dfx = 1.0 + a * math.sin(a * x)
        delta = fx / dfx
        x = x - delta
        steps = steps + 1
    return x


def scalar_loop(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y)
    return y


def _pushed(text: str) -> list[list[str]]:
    return [[item.strip() for item in m.group(1).strip("()").split(",") if item.strip()]
            for m in re.finditer(r"tape\.append\((.*)\)\n", text)]


def test_a_value_is_pushed_once():
    text = sg.source(sg.grad(newton), 5.0)
    pushes = _pushed(text)
    assert pushes and all(len(items) == len(set(items)) for items in pushes), text
    assert sg.grad(newton)(5.0) == pytest.approx(sg.grad(newton, optimize=False)(5.0),
                                                 rel=1e-12)
    assert sg.grad(newton)(5.0) == pytest.approx(
        float(numeric_gradient(newton, (5.0,), {}, 0)), rel=1e-6, abs=1e-6)


def test_no_double_negation_in_the_loop_body():
    text = sg.source(sg.grad(newton), 5.0)
    negated = dict(re.findall(r"(\w+) = -(\w+)\n", text))
    assert not any(src in negated for src in negated.values()), text


def test_one_saved_value_is_pushed_bare():
    text = sg.source(sg.grad(scalar_loop), 0.5, 20)
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
    array_products = re.findall(r"= (\w+) \* (\w+)\n", text)
    assert len(array_products) == 2, text  # (1/n) * 2, then that times (x - 1)
    np.testing.assert_allclose(sg.grad(scaled_twice)(x), 2.0 * (x - 1.0) / x.size)


def test_the_adjoint_loop_accumulator_is_named_after_the_variable():
    text = sg.source(sg.grad(scalar_loop), 0.5, 20)
    assert re.search(r"\n    dy = 1\.0\n", text), text
    assert not re.search(r"\n    _t\d+ = 1\.0\n", text), text
