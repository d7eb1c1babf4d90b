"""Element reads of a small array (``s[0]``, ``s[1]`` in an ODE right-hand side): their
adjoints are written into one array per sum (``passes/elements.py``), not one zeros array
per read, and ``np.array([a, b])`` of numbers is emitted as ``np.array``, not ``np.stack``
(``backend/packing.py``). Every program is checked against central finite differences in
reverse and forward mode and at second order; the cases where the rewrite would not be the
same array (overlapping or negative indices, float32) keep their scatters and stay right."""

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import (
    assert_forward_and_second_order_match_differences,
    assert_gradients_match_differences,
    loop_lines,
)
from tests.fd import directional_derivative, numeric_gradient, numeric_hessian


def dynamics(s, theta):
    return np.array([s[1], -theta[0] * np.sin(s[0]) - theta[1] * s[1]])


def ode_steps(theta, s0, steps):
    s = s0
    h = 0.05
    for _ in range(steps):
        k1 = dynamics(s, theta)
        k2 = dynamics(s + 0.5 * h * k1, theta)
        s = s + h * k2
    return np.sum(s * s)


def three_states(p, s0, steps):
    s = s0
    for _ in range(steps):
        s = s + 0.1 * np.array([s[1] * p[0], s[2] - p[1] * s[0], np.cos(s[0]) * p[2]])
    return s[0] * s[1] + s[2]


def overlapping_reads(m, steps):
    acc = 0.0
    for _ in range(steps):
        acc = acc + np.sum(m[0] * m[0, 1]) + m[1, 0]
    return acc


def negative_and_positive_reads(x, steps):
    acc = 0.0
    for _ in range(steps):
        acc = acc + x[-1] * x[1] + np.sin(x[0])
    return acc


ODES = [
    (ode_steps, (np.array([4.0, 0.3]), np.array([1.0, 0.0]), 6)),
    (three_states, (np.array([0.7, -0.4, 1.3]), np.array([0.2, 0.5, -0.1]), 5)),
]
IDS = ["ode_steps", "three_states"]


@pytest.mark.parametrize("fn, args", ODES, ids=IDS)
def test_element_reads_in_a_loop_sum_into_one_array_per_step(fn, args):
    text = sg.source(sg.grad(fn, wrt=(0, 1)), *args)
    assert "scatter_add(" not in loop_lines(text), text
    assert "np.zeros(" in loop_lines(text), text
    # each sum has its own zeros array (CSE keeps arrays written into apart): no copies
    assert "setitem(" not in loop_lines(text), text
    assert_gradients_match_differences(fn, args, (0, 1))


@pytest.mark.parametrize("fn, args", ODES, ids=IDS)
def test_element_read_programs_keep_forward_mode_and_second_order_right(fn, args):
    t = np.linspace(0.3, -0.2, args[0].size)
    assert_forward_and_second_order_match_differences(fn, args, t)


def test_array_of_numbers_is_emitted_as_np_array_and_keeps_its_dtype():
    text = sg.source(sg.grad(ode_steps), *ODES[0][1])
    assert "np.stack(" not in text and "np.array([" in text, text

    def mixed(x):
        a = np.array([x[0], np.float32(2.0) * x[1]])  # float64 items: float64
        return np.sum(a * a)

    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(sg.grad(mixed)(x), numeric_gradient(mixed, (x,), {}, 0),
                               rtol=1e-6)


def test_float32_element_reads_keep_a_float32_gradient():
    x = np.array([0.3, -0.7], dtype=np.float32)
    g = sg.grad(negative_and_positive_reads)(x, 3)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, numeric_gradient(negative_and_positive_reads, (x, 3), {}, 0),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("fn, args", [
    (overlapping_reads, (np.array([[0.5, -1.5], [2.0, 0.25]]), 3)),
    (negative_and_positive_reads, (np.array([0.3, -0.7]), 3)),
], ids=["row_and_element_of_it", "negative_index_names_a_read_position"])
def test_reads_that_may_name_one_position_twice_are_summed_right(fn, args):
    g = sg.grad(fn)(*args)
    np.testing.assert_allclose(g, numeric_gradient(fn, args, {}, 0), rtol=1e-6, atol=1e-8)
    t = np.ones_like(args[0])
    _, tangent = sg.jvp(fn)(*args, t)
    assert tangent == pytest.approx(float(directional_derivative(fn, args, {0: t})),
                                    rel=1e-6, abs=1e-8)


def test_consecutive_writes_into_a_fresh_array_are_emitted_in_place():
    def filled(x, n):
        acc = 0.0
        for _ in range(n):
            y = np.zeros(3)
            y[0] = x[0] * x[1]
            y[1] = np.sin(x[1])
            y[2] = x[0]
            acc = acc + np.sum(y * y)
        return acc

    x = np.array([0.4, 1.1])
    text = sg.source(sg.grad(filled), x, 2)
    # (each write but the last used to copy: the next write counted as a view of y)
    primal = text.split("tape.append")[0]
    assert "setitem(" not in primal and "y[1] = np.sin(" in primal, text
    np.testing.assert_allclose(sg.grad(filled)(x, 2), numeric_gradient(filled, (x, 2), {}, 0),
                               rtol=1e-6, atol=1e-8)


def reads_in_a_loop(x, n):
    acc = 0.0
    for _ in range(n):
        acc = acc + np.sin(x[0]) * x[1] + x[1] * x[2]
    return acc


def test_a_derivative_composed_on_grad_differentiates_scatters_not_writes():
    # the writes (into the loop's accumulator) are in the emitted code only: the IR sg.jvp
    # differentiates keeps its scatters, whose tangents are scatters (a write's tangent
    # would copy the array)
    x = np.array([0.3, 0.5, 0.7])
    assert "dx[0] = dx[0] + " in loop_lines(sg.source(sg.grad(reads_in_a_loop), x, 4))
    text = sg.source(sg.jvp(sg.grad(reads_in_a_loop)), x, 4, x)
    assert "setitem(" not in text and "zeros_like(" not in text, text
    np.testing.assert_allclose(sg.hessian(reads_in_a_loop)(x, 4),
                               numeric_hessian(sg.grad(reads_in_a_loop, optimize=False),
                                               (x, 4), 0), rtol=1e-5, atol=1e-7)
