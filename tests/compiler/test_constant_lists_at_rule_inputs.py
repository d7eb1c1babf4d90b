"""A list or tuple of plain numbers passed where a NumPy function takes an array
(``np.power(x, [2.0, 3.0, 1.0])``, ``x ** (2, 3, 1)``, ``np.arctan2(x, [1.0, 2.0, 3.0])``)
is the array NumPy reads (srcgrad/compiler/symbolic.py, ``_array_like``). It used to reach
the derivative rule as a Python list, which failed on the rule's arithmetic: a refusal in
reverse mode and an InternalCompilerError in forward mode.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([0.3, -0.7, 1.2])


def power_with_a_list_exponent(x):
    return np.sum(np.power(x, [2.0, 3.0, 1.0]))


def operator_power_with_a_tuple_of_ints(x):
    return np.sum(x ** (2, 3, 1))


def arctan2_with_a_list_denominator(x):
    return np.sum(np.arctan2(x, [1.0, 2.0, 3.0]))


def power_of_a_list_base_with_a_traced_exponent(x):
    return np.sum(np.power([2.0, 3.0, 1.5], x))


def hypot_and_logaddexp_with_lists_in_a_loop(x):
    s = 0.0
    for i in range(2):
        s = s + np.sum(np.hypot(x * i, [1.0, 2.0, 3.0])) + np.sum(np.logaddexp(x, (0.5, 1, 2)))
    return s


CASES = [power_with_a_list_exponent, operator_power_with_a_tuple_of_ints,
         arctan2_with_a_list_denominator, power_of_a_list_base_with_a_traced_exponent,
         hypot_and_logaddexp_with_lists_in_a_loop]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_a_constant_list_at_an_array_input_differentiates_in_every_mode(fn):
    sg.clear_cache()
    assert_close(sg.grad(fn)(X), numeric_gradient(fn, (X,), None, 0))
    seed = 1.7
    assert_close(sg.vjp(fn)(X, seed), numeric_gradient(fn, (X,), None, 0, seed=seed))
    tangent = np.array([0.4, -1.1, 0.8])
    value, d = sg.jvp(fn)(X, tangent)
    assert_close(value, fn(X), what="value")
    assert_close(d, directional_derivative(fn, (X,), {0: tangent}))
    assert_close(sg.hessian(fn)(X), numeric_hessian(sg.grad(fn), (X,)))


def test_a_list_exponent_of_a_float_argument_differentiates_at_second_order():
    def f(a):
        return float(np.sum(np.power(a, [1.0, 2.0, 3.0])))

    sg.clear_cache()
    assert_close(sg.grad(f)(0.7), numeric_gradient(f, (0.7,), None, 0))
    assert_close(sg.grad(sg.grad(f))(0.7), numeric_hessian(sg.grad(f), (0.7,)))
