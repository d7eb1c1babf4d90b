"""Element reads of a parameter in a loop (``theta[0]``, ``theta[1]`` each step): in the
reverse loop their adjoints are added into the loop's accumulator of the parameter's
adjoint element by element (``dtheta[0] = dtheta[0] + g``, written in place), not into a
zeros array made each iteration and added to it (``passes/elements.py``). Checked against
central finite differences in reverse and forward mode and at second order; reads that are
not one element each (a row of a matrix) keep their scatters and stay right."""

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import (
    assert_forward_and_second_order_match_differences,
    euler_on_two_floats,
)
from tests.fd import directional_derivative, numeric_gradient


def while_with_parameters(p, x0, n):
    x = x0
    k = 0
    while k < n:
        x = x + 0.1 * (p[0] * np.cos(x) - p[2] * x * p[1])
        k += 1
    return x * x


def matrix_rows_and_elements(m, steps):  # m[0] is a row (a view), m[1, 1] an element
    acc = 0.0
    for _ in range(steps):
        acc = acc + np.sum(np.sin(m[0]) * m[1, 1]) + m[1, 0] ** 2
    return acc


def _loops(text: str) -> str:
    return "\n".join(line for line in text.splitlines()
                     if line.startswith("        ") and not line.lstrip().startswith("#"))


PROGRAMS = [
    (euler_on_two_floats, (np.array([4.0, 0.3]), np.array([1.0, 0.0]), 7), "dtheta"),
    (while_with_parameters, (np.array([0.8, -0.3, 1.2]), 0.4, 4), "dp"),
]
IDS = ["euler_on_two_floats", "while_with_parameters"]


@pytest.mark.parametrize("fn, args, name", PROGRAMS, ids=IDS)
def test_parameter_element_adjoints_in_a_loop_add_into_its_accumulator(fn, args, name):
    text = _loops(sg.source(sg.grad(fn), *args))
    assert f"{name}[0] = {name}[0] " in text and f"{name}[1] = {name}[1] " in text, text
    assert "np.zeros(" not in text and "setitem(" not in text, text
    np.testing.assert_allclose(sg.grad(fn)(*args), numeric_gradient(fn, args, {}, 0),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn, args, name", PROGRAMS, ids=IDS)
def test_parameter_element_reads_stay_right_forward_and_at_second_order(fn, args, name):
    assert_forward_and_second_order_match_differences(fn, args, np.linspace(0.3, -0.2, args[0].size))


def test_a_loop_that_runs_no_iteration_gives_zeros_of_the_parameter():
    theta = np.array([4.0, 0.3])
    g = sg.grad(euler_on_two_floats)(theta, np.array([1.0, 0.0]), 0)
    assert type(g) is np.ndarray and g.shape == (2,) and g.dtype == np.float64
    assert not np.any(g)


def test_row_reads_beside_element_reads_keep_their_scatters_and_stay_right():
    m = np.array([[0.5, -1.5], [2.0, 0.25]])
    text = _loops(sg.source(sg.grad(matrix_rows_and_elements), m, 3))
    assert "dm[1, 1] = dm[1, 1]" not in text, text  # (a row is no element: no write into dm)
    np.testing.assert_allclose(sg.grad(matrix_rows_and_elements)(m, 3),
                               numeric_gradient(matrix_rows_and_elements, (m, 3), {}, 0),
                               rtol=1e-6, atol=1e-8)
    t = np.ones_like(m)
    _, tangent = sg.jvp(matrix_rows_and_elements)(m, 3, t)
    assert tangent == pytest.approx(
        float(directional_derivative(matrix_rows_and_elements, (m, 3), {0: t})),
        rel=1e-6, abs=1e-8)
