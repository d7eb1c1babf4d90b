"""Scalar factors are gathered inside loop bodies too (``passes/simplify.py``): a reverse
loop's ``(g * c) * 2.0`` is ``(2.0 * c) * g``, one pass over the array a step, and the
product of the two scalars, the same every step, is hoisted out of the loop. Checked
against central finite differences in reverse and forward mode and at second order."""

import re

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import directional_derivative, numeric_gradient, numeric_hessian


def scaled_in_a_loop(x, c, n):
    acc = 0.0
    for _ in range(n):
        y = np.sin(x + acc)
        acc = acc + np.sum(y * 2.0 * c)
    return acc


X = np.linspace(-0.4, 0.6, 5)


def test_scalar_factors_of_a_loop_body_meet_the_array_once_and_leave_the_loop():
    text = sg.source(sg.grad(scaled_in_a_loop), X, 0.7, 3)
    reverse = "\n".join(line for line in text.split("reversed(")[1].splitlines()
                        if not line.lstrip().startswith("#"))
    # the scalars' product once, before the loop; in it one product with the array
    assert re.search(r"\n    (\w+) = 2\.0 \* c\n", text), text
    assert not re.search(r"\* c \* 2\.0|\* 2\.0 \* c", reverse), text
    np.testing.assert_allclose(sg.grad(scaled_in_a_loop)(X, 0.7, 3),
                               numeric_gradient(scaled_in_a_loop, (X, 0.7, 3), {}, 0),
                               rtol=1e-6, atol=1e-8)


def test_gathered_loop_factors_stay_right_forward_and_at_second_order():
    t = np.linspace(0.5, -0.5, X.size)
    _, tangent = sg.jvp(scaled_in_a_loop)(X, 0.7, 3, t)
    assert tangent == pytest.approx(
        float(directional_derivative(scaled_in_a_loop, (X, 0.7, 3), {0: t})),
        rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(
        sg.hessian(scaled_in_a_loop)(X, 0.7, 3),
        numeric_hessian(sg.grad(scaled_in_a_loop, optimize=False), (X, 0.7, 3), 0),
        rtol=1e-5, atol=1e-7)
