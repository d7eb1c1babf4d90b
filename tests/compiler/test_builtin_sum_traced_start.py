"""Python's ``sum(x, start)`` of an array with a ``start`` known only at run time is
``start`` plus NumPy's sum over the first axis (frontend/builtin_calls.py ``_fold``, which
``sum`` and ``math.prod`` share). It was refused: the start was compared with 0 as a
Python bool."""

from __future__ import annotations

import math

import numpy as np

import srcgrad as sg
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian


def summed_from(x, s):
    return np.sum(sum(x, s) ** 2)


X = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 0.25]])
S = 0.75


def test_sum_of_an_array_with_a_traced_start_differentiates():
    gx, gs = sg.grad(summed_from, wrt=(0, 1))(X, S)
    assert_close(gx, numeric_gradient(summed_from, [X, S], None, 0))
    assert_close(gs, numeric_gradient(summed_from, [X, S], None, 1))
    t = np.array([[0.5, 1.0], [-1.0, 2.0], [0.25, -0.5]])
    _, tangent = sg.jvp(summed_from)(X, S, t)
    assert_close(tangent, directional_derivative(summed_from, [X, S], {0: t}))
    _, tangent = sg.jvp(summed_from, wrt=1)(X, S, 1.0)
    assert_close(tangent, directional_derivative(summed_from, [X, S], {1: 1.0}))


def test_sum_of_an_array_with_a_traced_start_second_order():
    assert_close(sg.hessian(summed_from, wrt=1)(X, S),
                 numeric_hessian(sg.grad(summed_from, wrt=1), [X, S], 1))


def test_sum_and_prod_with_constant_starts_keep_their_values():
    def f(x):
        return sum(x, 0.5) @ np.array([1.0, 2.0]) + sum([x[0, 0], x[1, 1]]) \
            + math.prod([x[0, 1], x[2, 0]], start=2.0) * sum(x)[0] + math.prod([x[1, 0], x[0, 1]])

    assert_close(sg.grad(f)(X), numeric_gradient(f, [X], None, 0))
