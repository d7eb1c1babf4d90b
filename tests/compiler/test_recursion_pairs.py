"""Forward mode of a recursion calls the callee's forward mode once per level, value and
tangent together (frontend/recursion.py ``_jvp_pair``, ad/forward.py ``_pair``): no
separate primal call reruns the rest of the recursion at each level. Checked against
central finite differences in forward mode, forward over reverse (``sg.hessian`` at depth
300) and reverse over forward (the gradient of a tangent)."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.linspace(0.1, 1.0, 5)
V = np.linspace(1.0, -1.0, 5)


def damp(x, n):
    if n == 0:
        return x
    return damp(np.sin(x) * 0.9 + 0.1 * x, n - 1)


def damped_energy(x, n):
    return np.sum(damp(x, n) ** 2)


def braid(x, y, n):
    # both arguments of the recursive call carry a tangent of x
    if n == 0:
        return x * y
    return braid(np.sin(x), x * y * 0.5 + 0.1, n - 1)


def braided(x, n):
    return np.sum(braid(x, np.cos(x), n))


def test_forward_mode_of_a_recursion_makes_one_call_per_level_for_value_and_tangent():
    fw = sg.jvp(damped_energy)
    text = sg.source(fw, X, 3, V)
    # one call, of the callee's forward mode; its value is item 0 of what it returns
    assert text.count("_call_jvp_damp(") == 1
    assert "_call_damp(" not in text
    inner = sg.source(sg.jvp(damp), X, 3, V)
    assert inner.count("_call_jvp_damp(") == 1 and "_call_damp(" not in inner


@pytest.mark.parametrize("depth", [0, 1, 5, 300])
def test_forward_mode_of_a_recursion_differentiates_at_any_depth(depth):
    value, tangent = sg.jvp(damped_energy)(X, depth, V)
    assert_close(value, damped_energy(X, depth))
    assert_close(tangent, directional_derivative(damped_energy, (X, depth), {0: V}))


@pytest.mark.parametrize("depth", [0, 1, 5, 300])
def test_hessian_of_a_recursion_differentiates_at_any_depth(depth):
    assert_close(sg.hessian(damped_energy)(X, depth),
                 numeric_hessian(sg.grad(damped_energy), (X, depth)))


@pytest.mark.parametrize("depth", [0, 1, 4])
def test_gradient_of_a_recursions_tangent_differentiates(depth):
    def tangent_of(x):
        return sg.jvp(damped_energy)(x, depth, V)[1]

    assert_close(sg.grad(tangent_of)(X), numeric_gradient(tangent_of, (X,), {}, 0))


@pytest.mark.parametrize("depth", [0, 1, 4])
def test_recursion_whose_arguments_all_carry_tangents_differentiates(depth):
    # several arguments with a tangent keep the per-argument rules (a tuple of tangents
    # could not be differentiated again): still right in every mode
    _, tangent = sg.jvp(braided)(X, depth, V)
    assert_close(tangent, directional_derivative(braided, (X, depth), {0: V}))
    assert_close(sg.hessian(braided)(X, depth), numeric_hessian(sg.grad(braided), (X, depth)))

    def tangent_of(x):
        return sg.jvp(braided)(x, depth, V)[1]

    assert_close(sg.grad(tangent_of)(X), numeric_gradient(tangent_of, (X,), {}, 0))
