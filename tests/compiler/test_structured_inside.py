"""Containers used inside a differentiated function as Python uses them (API.md
"Structured arguments": ``params["W1"]``, ``for W, b in layers``, ``for k, v in
params.items()``, ``{**params, ...}``, ``enumerate``/``zip`` over layers, ``dict.get``,
``sorted(params)``), each checked against central finite differences leaf by leaf in
reverse mode, and in forward mode and at second order where the structure is carried."""

from __future__ import annotations

import numpy as np
import pytest
from fd import (
    assert_close,
    assert_tree_close,
    numeric_gradient,
    numeric_hessian,
    numeric_tree_gradient,
)

import srcgrad as sg

RNG = np.random.default_rng(21)
X = RNG.normal(size=2)


def dict_unpacked_into_a_new_dict(params, x):
    scaled = {**params, "W": params["W"] * 2.0}
    return np.sum(np.tanh(scaled["W"] * x + scaled["b"]))


def enumerate_over_layers(layers, x):
    for i, (W, b) in enumerate(layers, 1):
        x = np.sin(W * x + b) * i
    return np.sum(x)


def zip_layers_with_scales(layers, x):
    for (W, b), s in zip(layers, [0.5, 2.0]):
        x = np.tanh(W * x + b) * s
    return np.sum(x ** 2)


def zip_layers_with_a_range(layers, x):
    for (W, b), k in zip(layers, range(10)):
        x = W * x + b * k
    return np.sum(np.cos(x))


def get_and_sorted_keys(params, x):
    total = 0.0
    for key in sorted(params):
        total = total + np.sum(params.get(key) * x)
    return total * params.get("missing", 3.0)


def _dict():
    return {"W": RNG.normal(size=2), "b": 0.3}


def _layers():
    return [(RNG.normal(size=2), RNG.normal(size=2)), (RNG.normal(size=2), 0.7)]


CASES = {
    "dict_unpacked": (dict_unpacked_into_a_new_dict, _dict),
    "enumerate_layers": (enumerate_over_layers, _layers),
    "zip_layers_list": (zip_layers_with_scales, _layers),
    "zip_layers_range": (zip_layers_with_a_range, _layers),
    "get_sorted": (get_and_sorted_keys, _dict),
}


@pytest.fixture(autouse=True)
def _fresh():
    sg.clear_cache()


@pytest.mark.parametrize("case", CASES)
def test_container_forms_inside_differentiate_in_reverse_and_forward(case):
    fn, make = CASES[case]
    params = make()
    assert_tree_close(sg.grad(fn)(params, X), numeric_tree_gradient(fn, [params, X], 0))
    gx = numeric_gradient(fn, [params, X], None, 1)
    assert_close(sg.grad(fn, wrt=1)(params, X), gx)
    t = RNG.normal(size=2)
    value, tangent = sg.jvp(fn, wrt=1)(params, X, t)
    assert_close(value, fn(params, X), what="value")
    assert_close(tangent, gx @ t, what="tangent")
    H = sg.hessian(fn, wrt=1)(params, X)
    assert_close(H, numeric_hessian(sg.grad(fn, wrt=1), [params, X], 1), what="hessian")


def test_unpacking_something_else_than_a_dict_in_a_dict_display_is_refused():
    def f(x):
        d = {**x}
        return np.sum(d)
    with pytest.raises(sg.SrcGradError, match=r"\*\*"):
        sg.grad(f)(X)


def dict_through_a_branch(params, x):
    state = {"h": x * params["W"], "c": params["b"]}
    if np.sum(x) > 0:
        state = {"h": np.tanh(state["h"]), "c": state["c"] * 2.0}
    return np.sum(state["h"] * state["c"])


def dict_through_a_run_time_loop(params, x):
    state = {"h": x, "total": 0.0}
    for _ in range(int(params["n"])):
        h = np.sin(state["h"] * params["W"] + params["b"])
        state = {"h": h, "total": state["total"] + np.sum(h)}
    return state["total"]


def namedtuple_through_a_loop(params, x):
    from test_structured_arguments import Pair
    p = Pair(x, 1.0)
    for _ in range(3):
        p = Pair(np.tanh(p.w * params["W"]), p.scale * params["b"])
    return np.sum(p.w) * p.scale


BLOCK_CASES = {
    "dict_branch": (dict_through_a_branch, lambda: {"W": RNG.normal(size=2), "b": 0.8}),
    "dict_loop": (dict_through_a_run_time_loop,
                  lambda: {"W": RNG.normal(size=2), "b": 0.3, "n": 3}),
    "namedtuple_loop": (namedtuple_through_a_loop, lambda: {"W": RNG.normal(size=2), "b": 0.9}),
}


@pytest.mark.parametrize("case", BLOCK_CASES)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_dicts_cross_run_time_branches_and_loops_leaf_by_leaf(case, sign):
    fn, make = BLOCK_CASES[case]
    params, x = make(), sign * np.abs(X)
    assert_tree_close(sg.grad(fn)(params, x), numeric_tree_gradient(fn, [params, x], 0))
    gx = numeric_gradient(fn, [params, x], None, 1)
    t = RNG.normal(size=2)
    assert_close(sg.jvp(fn, wrt=1)(params, x, t)[1], gx @ t, what="tangent")
    assert_close(sg.hessian(fn, wrt=1)(params, x),
                 numeric_hessian(sg.grad(fn, wrt=1), [params, x], 1), what="hessian")


def test_a_dict_with_other_keys_on_each_branch_is_refused():
    def f(x):
        d = {"a": x}
        if np.sum(x) > 0:
            d = {"b": x}  # <- error (the if)
        return np.sum(x) * len(d)
    with pytest.raises(sg.SrcGradError, match="dict of shape"):
        sg.grad(f)(X)


def dataclass_state_through_loop_and_branch(params, x):
    from test_structured_arguments import Linear
    state = Linear(x * params["W"], params["b"])
    for _ in range(2):
        state = Linear(np.tanh(state.W), state.b * 1.5)
    if np.sum(x) > 0:
        state = Linear(state.W * 2.0, state.b)
    return np.sum(state.W) * state.b


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_dataclass_built_inside_crosses_loops_and_branches(sign):
    fn = dataclass_state_through_loop_and_branch
    params, x = {"W": RNG.normal(size=2), "b": 0.4}, sign * np.abs(X)
    assert_tree_close(sg.grad(fn)(params, x), numeric_tree_gradient(fn, [params, x], 0))
    gx = numeric_gradient(fn, [params, x], None, 1)
    t = RNG.normal(size=2)
    assert_close(sg.jvp(fn, wrt=1)(params, x, t)[1], gx @ t, what="tangent")
