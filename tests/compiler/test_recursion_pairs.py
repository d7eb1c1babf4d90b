"""Forward mode of a recursion calls the callee's forward mode once per level, value and
tangent together (frontend/recursion.py ``_jvp_pair``, ad/forward.py ``_pair``): no
separate primal call reruns the rest of the recursion at each level. Checked against
central finite differences in forward mode, forward over reverse (``sg.hessian`` at depth
300) and reverse over forward (the gradient of a tangent)."""

from __future__ import annotations

import sys

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


def deepest_primal_depth() -> int:
    """The deepest ``damped_energy`` runs here, under the current recursion limit (pytest's
    own frames included), found by trying."""
    depth = sys.getrecursionlimit()
    while depth > 0:
        try:
            damped_energy(X, depth)
            return depth
        except RecursionError:
            depth -= 10
    raise AssertionError("the primal does not recurse at all")


def test_recursion_differentiates_as_deep_as_the_function_itself_runs():
    # one Python frame per level in every derivative (the emitted code calls the callee's
    # emitted code directly), as in the primal; a few frames of the derived function's
    # entry stay on top, hence the margin
    limit = sys.getrecursionlimit()
    depth = deepest_primal_depth() - 10
    assert depth > limit * 0.8
    assert_close(sg.grad(damped_energy)(X, depth),
                 numeric_gradient(damped_energy, (X, depth), {}, 0))
    value, tangent = sg.jvp(damped_energy)(X, depth, V)
    assert_close(tangent, directional_derivative(damped_energy, (X, depth), {0: V}))
    assert_close(sg.hessian(damped_energy)(X, depth),
                 numeric_hessian(sg.grad(damped_energy), (X, depth)))
    assert sys.getrecursionlimit() == limit  # nothing raised it


def test_a_recursive_call_in_emitted_code_is_bound_to_the_callee_itself():
    # after the first call, the name the emitted code calls is the callee's emitted
    # function (or the user's function for the primal): no wrapper or dispatcher between
    df = sg.jvp(damped_energy)
    df(X, 4, V)
    ((_, entry),) = df.__srcgrad__.dispatcher.versions  # the version that ran
    callee = entry.fn.__globals__["_call_jvp_damp"]
    assert callee.__code__.co_filename.startswith("<srcgrad:jvp_damp")
    assert callee.__globals__["_call_jvp_damp"] is callee  # it calls itself by name
