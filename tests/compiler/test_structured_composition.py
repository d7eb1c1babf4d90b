"""Transforms composed over structured arguments through ``sg.value_and_grad``: its
gradients keep the argument's containers also when another transform is applied on top
(``sg.jvp`` of it, ``sg.grad`` of a function that calls it). Checked against central
differences leaf by leaf."""

from __future__ import annotations

import numpy as np
from fd import assert_tree_close, directional_tree_difference, numeric_tree_gradient

import srcgrad as sg

P = {"W": np.array([[0.3, -0.2], [0.1, 0.5]]), "b": np.array([0.1, -0.3])}
X = np.array([0.7, -1.1])
T = {"W": np.array([[0.2, -0.4], [0.9, 0.1]]), "b": np.array([-0.5, 0.3])}


def loss(p, x):
    return np.sum(np.tanh(p["W"] @ x + p["b"]) ** 2)


def moved(s):
    return {"W": P["W"] + s * T["W"], "b": P["b"] + s * T["b"]}


def test_jvp_of_value_and_grad_over_a_dict_gives_the_gradients_tangent_as_a_dict():
    sg.clear_cache()
    vg = sg.value_and_grad(loss)
    (value, grads), (value_tangent, grads_tangent) = sg.jvp(vg)(P, X, T)
    want_value, want_grads = vg(P, X)
    assert_tree_close(value, want_value, rtol=1e-12, atol=1e-12)
    assert_tree_close(grads, want_grads, rtol=1e-12, atol=1e-12)
    assert isinstance(grads_tangent, dict) and list(grads_tangent) == ["W", "b"]
    assert_tree_close(value_tangent, directional_tree_difference(lambda s: loss(moved(s), X)))
    assert_tree_close(grads_tangent,
                      directional_tree_difference(lambda s: sg.grad(loss)(moved(s), X)))


def uses_value_and_grad_inside(p, x):
    value, grads = sg.value_and_grad(loss)(p, x)
    return value + np.sum(grads["W"] ** 2) + 0.5 * np.sum(grads["b"])


def test_grad_of_a_function_calling_value_and_grad_over_a_dict_differentiates():
    sg.clear_cache()
    got = sg.grad(uses_value_and_grad_inside)(P, X)
    assert isinstance(got, dict) and list(got) == ["W", "b"]
    assert_tree_close(got, numeric_tree_gradient(uses_value_and_grad_inside, [P, X], 0))
