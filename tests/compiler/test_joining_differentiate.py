"""Joining functions differentiate: ``np.vstack``, ``np.hstack``, ``np.dstack``,
``np.column_stack``, ``np.append`` and ``np.atleast_1d/2d/3d`` (rules/joining.py).

Before they had rules, a tuple of traced arrays passed to them reached an opaque call and
the gradient was exactly 0. Each program is checked against central finite differences in
reverse, forward and second order; the runtime's ``np.vstack`` on Tensors too. Functions
that still have no rule (``np.block``) are refused, naming the function and the line.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

W2 = np.array([[0.5, -1.0], [2.0, 0.25]])
W3 = np.array([[0.5, -1.0, 1.5], [2.0, 0.25, -0.5]])


def vstack_rows(x):
    return np.sum(np.vstack((x, x ** 2)) * W2)


def hstack_with_a_list_element(x):
    return np.sum(np.hstack((x, [1.0, x[0] * x[1]])) ** 2)


def hstack_of_matrices(x):
    m = np.outer(x, x)
    return np.sum(np.hstack([m, np.sin(m)]) ** 2)


def dstack_pair(x):
    return np.sum(np.dstack((x, x * x)) ** 3)


def column_stack_pair(x):
    return np.sum((np.column_stack((x, np.sin(x))) @ W3) ** 2)


def append_flat(x):
    return np.sum(np.append(x, x[0] * 2.0) ** 2)


def append_rows(x):
    m = np.outer(x, x)
    return np.sum(np.append(m, m[:1] * 3.0, axis=0) ** 2)


def atleast_2d_row(x):
    return np.sum(np.atleast_2d(x) @ W2 * x)


def atleast_1d_and_3d(x):
    return np.sum(np.atleast_1d(x[0]) * np.atleast_3d(x) ** 2)


PROGRAMS = [vstack_rows, hstack_with_a_list_element, hstack_of_matrices, dstack_pair,
            column_stack_pair, append_flat, append_rows, atleast_2d_row, atleast_1d_and_3d]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_joining_traced_arrays_differentiates(fn):
    check_all_modes(fn, np.array([0.6, -1.3]))


def vstack_of_floats(x):
    return np.sum(np.vstack([x, 2 * x, x * x]) ** 2)


def hstack_of_floats(x):
    return np.sum(np.hstack((x, np.sin(x))) ** 2)


@pytest.mark.parametrize("fn", [vstack_of_floats, hstack_of_floats], ids=lambda f: f.__name__)
def test_joining_traced_floats_differentiates(fn):
    check_all_modes(fn, 0.7)


def test_vstack_on_tensors_records_its_derivative():
    x0 = np.array([0.6, -1.3])

    def f(x):
        return np.sum(np.vstack((x, x * x)) * W2)

    x = sg.tensor(x0, requires_grad=True)
    f(x).backward()
    assert_close(x.grad.numpy(), numeric_gradient(f, [x0], {}, 0))


def block_has_no_rule(x):
    return np.sum(np.block([x, x * x]))  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_joining_function_without_rule_is_refused(mode):
    assert_refused(block_has_no_rule, np.array([0.6, -1.3]), ["np.block"], mode)


def atleast_2d_of_two_arrays(x):
    a, b = np.atleast_2d(x, x * 2.0)  # <- error
    return np.sum(a * b)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_atleast_of_several_arrays_is_refused_naming_the_tuple(mode):
    assert_refused(atleast_2d_of_two_arrays, np.array([0.6, -1.3]),
                   ["np.atleast_2d of several arrays returns a tuple"], mode)
