"""Shape facts inside loop and branch bodies (``passes/blocks.py`` with ``passes/shapes.py``):
a loop-carried array whose shape the body keeps has its initial value's shape inside the
body, so no ``np.shape`` runs per iteration, none is pushed on the tape and no
``unbroadcast`` runs on equal shapes; where the body broadcasts the carried value to a
larger shape, nothing is assumed and the sum over the broadcast axes stays. Every program is
checked against central finite differences in reverse and forward mode and at second
order."""

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.loop_programs import (
    assert_forward_and_second_order_match_differences,
    assert_gradients_match_differences,
    loop_lines,
)
from tests.fd import numeric_gradient


def carried_same_shape(x, a, n):
    y = x
    for _ in range(n):
        y = y * a + np.sin(y)
    return np.sum(y * y)


def branch_in_loop(x, n):
    acc = x
    for i in range(n):
        if i % 2 == 0:
            acc = acc * x
        else:
            acc = acc + np.tanh(acc)
    return np.sum(acc)


def carried_grows(x, w, n):
    y = x
    for _ in range(n):
        y = y * 0.5 + w  # (3,) + (2, 3): y is (2, 3) from the first iteration on
    return np.sum(np.sin(y))


@pytest.mark.parametrize("fn, args, wrt", [
    (carried_same_shape, (np.linspace(-0.5, 0.8, 4), 0.9, 5), (0, 1)),
    (branch_in_loop, (np.linspace(0.1, 0.6, 3), 5), (0,)),
], ids=["carried_same_shape", "branch_in_loop"])
def test_a_carried_array_keeps_its_shape_class_in_the_loop_body(fn, args, wrt):
    text = sg.source(sg.grad(fn, wrt=wrt), *args)
    inside = loop_lines(text)
    assert "np.shape(" not in inside and ".shape" not in inside, text
    assert "unbroadcast(dacc" not in inside, text
    assert "unbroadcast(dy," not in inside, text
    assert_gradients_match_differences(fn, args, wrt)


@pytest.mark.parametrize("fn, args", [
    (carried_same_shape, (np.linspace(-0.5, 0.8, 4), 0.9, 5)),
    (branch_in_loop, (np.linspace(0.1, 0.6, 3), 5)),
    (carried_grows, (np.linspace(-0.5, 0.8, 3), np.array([[0.1, 0.2, 0.3], [-0.3, 0.0, 0.4]]),
                     3)),
], ids=["carried_same_shape", "branch_in_loop", "carried_grows"])
def test_loop_shape_facts_keep_forward_and_second_order_right(fn, args):
    x = args[0]
    t = np.linspace(0.2, -0.3, x.size)
    assert_forward_and_second_order_match_differences(fn, args, t)


def test_a_carried_array_that_broadcasts_larger_is_summed_back_to_its_shape():
    x = np.linspace(-0.5, 0.8, 3)
    w = np.array([[0.1, 0.2, 0.3], [-0.3, 0.0, 0.4]])
    got = sg.grad(carried_grows)(x, w, 3)
    assert got.shape == x.shape
    np.testing.assert_allclose(got, numeric_gradient(carried_grows, (x, w, 3), {}, 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.grad(carried_grows, wrt=1)(x, w, 3),
                               numeric_gradient(carried_grows, (x, w, 3), {}, 1),
                               rtol=1e-6, atol=1e-8)
    assert "unbroadcast(" in sg.source(sg.grad(carried_grows), x, w, 3)
