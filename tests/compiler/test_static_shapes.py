"""Static shapes in the shape classes (``passes/static_shapes.py``): ``np.array([a, b])`` of
numbers is ``(2,)`` at compile time, so the stages of an ODE step built from it share one
class, and broadcasting a rank-1 array against it keeps ``(2,)``; the adjoint then runs no
``unbroadcast`` and no ``np.shape`` between them. Where broadcasting could give another
shape (an axis of length 1, an operand of higher rank) the sum over broadcast axes stays.
Each program is checked against central finite differences in reverse and forward mode and
at second order."""

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import (
    assert_forward_and_second_order_match_differences,
    assert_gradients_match_differences,
    loop_lines,
)


def rhs(s, p):
    return np.array([s[1] * p[0], -np.sin(s[0]) - p[1] * s[1]])


def heun(p, s0, steps):
    s = s0
    for _ in range(steps):
        k1 = rhs(s, p)
        k2 = rhs(s + 0.1 * k1, p)
        s = s + 0.05 * (k1 + k2)
    return np.sum(s * s)


def length_one_broadcasts(x, steps):
    acc = 0.0
    for _ in range(steps):
        k = np.array([x[0] * x[1]])  # (1,): x + k is x's shape, not k's
        acc = acc + np.sum(np.sin(x + k))
    return acc


def matrix_plus_pair(x, m, steps):
    acc = 0.0
    for _ in range(steps):
        k = np.array([x[0], x[1] * x[0]])  # (2,) against a (3, 2) matrix: (3, 2)
        acc = acc + np.sum(np.cos(m + k) * k)
    return acc


CASES = [
    (heun, (np.array([1.3, 0.2]), np.array([0.8, -0.1]), 4), (0, 1)),
    (length_one_broadcasts, (np.array([0.3, -0.6, 0.9]), 3), (0,)),
    (matrix_plus_pair, (np.array([0.4, 0.7]), np.linspace(-1.0, 1.0, 6).reshape(3, 2), 3),
     (0, 1)),
]
IDS = ["heun", "length_one_broadcasts", "matrix_plus_pair"]


def test_stages_built_from_numbers_share_a_static_shape_in_the_adjoint():
    args = CASES[0][1]
    inside = loop_lines(sg.source(sg.grad(heun, wrt=(0, 1)), *args))
    assert "np.shape(k2" not in inside and "unbroadcast(dk" not in inside, inside
    # one np.shape of a stage per step, none of their sums
    assert inside.count("np.shape(") <= 2, inside


@pytest.mark.parametrize("fn, args, wrt", CASES, ids=IDS)
def test_static_shape_programs_differentiate_in_reverse_mode(fn, args, wrt):
    assert_gradients_match_differences(fn, args, wrt)


@pytest.mark.parametrize("fn, args, wrt", CASES, ids=IDS)
def test_static_shape_programs_differentiate_forward_and_at_second_order(fn, args, wrt):
    t = np.linspace(0.5, -0.4, args[0].size)
    assert_forward_and_second_order_match_differences(fn, args, t)


def test_a_length_one_static_shape_keeps_the_sum_over_the_broadcast_axis():
    args = CASES[1][1]
    text = sg.source(sg.grad(length_one_broadcasts), *args)
    assert "unbroadcast(" in loop_lines(text), text
