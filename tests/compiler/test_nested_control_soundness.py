"""Loops nested in branches (and branches in loops), differentiated in both modes and at
second order in every composition: grad∘grad, vjp∘grad (reverse over reverse),
jvp∘grad, jacobian∘grad, hessian (forward over reverse).

A reverse pass saves a loop's values on a tape made next to the loop; when the loop sits
in a branch, that tape leaves the branch as an output of the primal ``if`` and the adjoint
``if`` pops it (srcgrad/compiler/ad/regions.py). Differentiating that reverse pass again
pairs each pop with its push through those ``if`` outputs (srcgrad/compiler/ad/tape.py).
Every derivative is checked against central differences (tests/compiler/fd.py): first
order of ``f`` itself, second order of the first-order gradient checked just before.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg


def while_in_if(x):  # the fuzzer's program: the while loop saves nothing but its count
    if x > 0:
        i = 0
        while x < 10.0 and i < 5:
            x = x * 2
            i += 1
    return x


def while_in_if_saving(x):
    if x > 0:
        while x < 10.0:
            x = x * 1.7 + np.sin(x)
    return x * x


def for_in_if(x):
    if x > 0:
        for _ in range(3):
            x = x * x * 0.5 + np.sin(x)
    return x * x


def if_in_for(x):
    for _ in range(3):
        if x > 0:
            x = x * np.sin(x)
        else:
            x = x + 1
    return x * x


def for_in_for(x):
    for _ in range(2):
        for _ in range(2):
            x = np.sin(x) * x
    return x


def loop_in_both_branches(x):
    if x > 0:
        for _ in range(2):
            x = np.sin(x) * x
    else:
        for _ in range(3):
            x = np.cos(x) * x
    return x


def loop_in_else(x):
    if x < 0:
        x = x * 3
    else:
        for _ in range(2):
            x = np.sin(x) * x
    return x


def while_in_else(x):
    if x < 0:
        y = x * x
    else:
        y = x
        while y < 5.0:
            y = y * np.exp(x) + 0.5
    return y


def return_from_loop_in_if(x):
    if x > 0:
        for _ in range(4):
            x = x * 1.5 + np.sin(x)
            if x > 2.0:
                return x * x * x
    return np.cos(x)


def break_from_loop_in_if(x):
    if x > 0:
        for _ in range(5):
            x = x * 1.5 + np.sin(x)
            if x > 3.0:
                break
    return x * x


def break_from_while_true_in_if(x):
    if x > 0:
        while True:
            x = x * 1.3 + 0.1 * np.sin(x)
            if x > 5.0:
                break
    return x * x


def continue_in_loop_in_if(x):
    if x > 0:
        for i in range(4):
            if i == 2:
                continue
            x = x * np.cos(x) + 1.0
    return x


def branch_in_while_in_if(x):
    if x > 0:
        n = 0
        while n < 4:
            if x > 1.0:
                x = np.sqrt(x) * 1.3
            else:
                x = x * x + 0.9
            n += 1
    return x * np.sin(x)


def loop_in_if_in_for(x):
    s = 0.0
    for _ in range(3):
        if x > 0.5:
            for j in range(2):
                s = s + np.sin(x * s + j)
        else:
            s = s * x
        x = x * 0.9
    return s


def loops_in_nested_ifs(x):
    if x > 0:
        if x > 1.0:
            for _ in range(2):
                x = x * np.sin(x)
        else:
            while x < 1.0:
                x = x * 1.8
    return x * x


def loops_in_elif_chain(x):
    if x > 1.0:
        for _ in range(2):
            x = x * np.sin(x)
    elif x > 0:
        for _ in range(2):
            x = x * np.cos(x)
    else:
        x = np.exp(x)
    return x


def outer_value_read_in_loop_in_if(x):
    y = x * 2.0
    if x > 0:
        for _ in range(3):
            y = y * np.sin(x) + x
    return y


def for_in_while_in_for(x):
    for _ in range(2):
        k = 0
        while k < 2:
            for _ in range(2):
                x = np.sin(x) + x * 0.5
            k += 1
    return x


PROGRAMS = [while_in_if, while_in_if_saving, for_in_if, if_in_for, for_in_for,
            loop_in_both_branches, loop_in_else, while_in_else, return_from_loop_in_if,
            break_from_loop_in_if, break_from_while_true_in_if, continue_in_loop_in_if,
            branch_in_while_in_if, loop_in_if_in_for, loops_in_nested_ifs,
            loops_in_elif_chain, outer_value_read_in_loop_in_if, for_in_while_in_for]
# points on each side of the branches (none at a kink of a trip count)
POINTS = [0.7, -0.7, 1.3, 0.3]
CASES = [(f, x) for f in PROGRAMS for x in POINTS]
IDS = [f"{f.__name__}-{x}" for f, x in CASES]


def _fd(f, x):
    return float(numeric_gradient(f, [x], {}, 0))


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_nested_control_first_order_in_both_modes(f, x):
    want = _fd(f, x)
    assert_close(sg.grad(f)(x), want, rtol=1e-6, atol=1e-6)
    value, tangent = sg.jvp(f)(x, 1.0)
    assert_close(value, f(x), rtol=1e-12, atol=0, what="value")
    assert_close(tangent, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_nested_control_second_order_in_every_composition(f, x):
    g = sg.grad(f)
    assert_close(g(x), _fd(f, x), rtol=1e-6, atol=1e-6)
    want = _fd(g, x)
    assert_close(sg.grad(sg.grad(f))(x), want, rtol=1e-5, atol=1e-5, what="grad(grad)")
    assert_close(sg.vjp(sg.grad(f))(x, 1.0), want, rtol=1e-5, atol=1e-5, what="vjp(grad)")
    assert_close(sg.jvp(sg.grad(f))(x, 1.0)[1], want, rtol=1e-5, atol=1e-5, what="jvp(grad)")
    assert_close(sg.jacobian(sg.grad(f))(x), want, rtol=1e-5, atol=1e-5,
                 what="jacobian(grad)")
    assert_close(sg.hessian(f)(x), want, rtol=1e-5, atol=1e-5, what="hessian")


THIRD = [(for_in_if, 0.7), (loop_in_both_branches, -0.7), (loop_in_else, 1.3),
         (while_in_if_saving, 0.7), (break_from_loop_in_if, 0.7)]


@pytest.mark.parametrize("f, x", THIRD, ids=[f"{f.__name__}-{x}" for f, x in THIRD])
def test_nested_control_third_order_reverse(f, x):
    gg = sg.grad(sg.grad(f))
    assert_close(sg.grad(gg)(x), _fd(gg, x), rtol=1e-4, atol=1e-4, what="grad^3")


# --- vectors: the tapes hold arrays; Hessians are full matrices -----------------------------

X3 = np.array([0.4, -0.3, 0.8])


def vector_loop_in_branch(x):
    s = np.sum(x * x)
    if s > 0.5:
        for _ in range(3):
            x = np.tanh(x * 1.5) + 0.1 * x
    else:
        while np.sum(x) < 2.0:
            x = x * 1.2 + 0.3
    return np.sum(x * x * x)


def vector_while_in_if_in_for(x):
    total = 0.0
    for k in range(2):
        if np.sum(x) > 0:
            y = x
            while np.sum(y * y) < 4.0:
                y = y * 1.4 + np.sin(x)
            total = total + np.sum(np.log(y * y + 1.0))
        x = x * 0.8
    return total


def linear_step_with_break(x):
    # the steps and the result are linear in acc, so the reverse pass's loop carries nothing
    # that varies with x:
    # forward over reverse must still take the tangents its primal loop pushed off the tape
    acc = np.cos(x) * 0.5
    for _ in range(2):
        if np.sum(acc) < 1.15:
            break
        acc = acc * 2.0 - acc
    return np.sum(acc)


def linear_step_with_continue(x):
    acc = np.cos(x) * 0.5
    for i in range(3):
        acc = acc * (1.0 + 0.1 * i) - 0.5
        if np.sum(acc) <= 1.42:
            continue
        acc = acc * 0.9
    return np.sum(acc)


VECTOR_PROGRAMS = [vector_loop_in_branch, vector_while_in_if_in_for, linear_step_with_break,
                   linear_step_with_continue]


@pytest.mark.parametrize("f", VECTOR_PROGRAMS, ids=[f.__name__ for f in VECTOR_PROGRAMS])
@pytest.mark.parametrize("x", [X3, -X3, X3 * 0.5, X3 - 2.0])
def test_nested_control_hessian_of_a_vector(f, x):
    g = sg.grad(f)
    assert_close(g(x), numeric_gradient(f, [x], {}, 0), rtol=1e-6, atol=1e-6)
    want = np.stack([numeric_gradient(lambda v, k=k: g(v)[k], [x], {}, 0)
                     for k in range(x.size)])
    H = sg.hessian(f)(x)
    assert_close(H, want, rtol=1e-5, atol=1e-5, what="hessian")
    v = np.array([1.0, -2.0, 0.5])
    assert_close(sg.jvp(g)(x, v)[1], want @ v, rtol=1e-5, atol=1e-5, what="jvp(grad)")
    assert_close(sg.vjp(g)(x, v), want.T @ v, rtol=1e-5, atol=1e-5, what="vjp(grad)")
