"""Structured arguments (API.md "Structured arguments and results", DESIGN.md principle 12).

Each container kind (dict, list, tuple, namedtuple, dataclass, nested list of tuples, a dict
with static leaves) crossed with every transform (``grad``, ``value_and_grad``, ``vjp``,
``jvp``) and checked leaf by leaf against central finite differences (``tests/fd.py``); the
gradient keeps the argument's containers and leaf types (dict stays dict with the same keys,
the same namedtuple or dataclass class, float gives float, np.float64 gives np.float64,
static leaves give None). Second order where the structured argument is carried along.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest
from fd import (
    assert_close,
    assert_leaf_types,
    assert_tree_close,
    directional_tree_difference,
    numeric_gradient,
    numeric_hessian,
    numeric_tree_gradient,
    tree_map_paths,
)

import srcgrad as sg

RNG = np.random.default_rng(13)
X = RNG.normal(size=3)


def two_layer(params, x):
    h = np.tanh(params["W1"] @ x + params["b1"])
    return np.sum(params["W2"] * h) + params["c"] * params["c"]


def dict_params():
    return {"W1": RNG.normal(size=(2, 3)), "b1": RNG.normal(size=2),
            "W2": RNG.normal(size=2), "c": 0.7}


def list_of_shapes(xs, x):
    return np.sum(xs[0] * x) + np.sum(xs[1] ** 2) + xs[2] * np.sum(x)


def list_params():
    return [RNG.normal(size=3), RNG.normal(size=(2, 2)), 1.5]


def unpacked(abc, x):
    a, b, c = abc
    return np.sum(a * x) * b + np.sin(c)


def tuple_params():
    return (RNG.normal(size=3), 0.4, np.float64(0.9))


Pair = collections.namedtuple("Pair", "w scale")


def namedtuple_loss(p, x):
    return np.sum(np.exp(p.w * x)) * p.scale


def namedtuple_params():
    return Pair(RNG.normal(size=3) * 0.3, np.float64(1.3))


@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: float
    activation: str = "tanh"

    def predict(self, x):
        z = self.W @ x + self.b
        return np.tanh(z) if self.activation == "tanh" else z


def dataclass_loss(model, x):
    return np.sum(model.predict(x) ** 2)


def dataclass_params():
    return Linear(RNG.normal(size=(2, 3)) * 0.5, 0.2)


def layers_loss(layers, x):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x * x)


def layer_params():
    return [(RNG.normal(size=(2, 3)), RNG.normal(size=2)),
            (RNG.normal(size=(1, 2)), RNG.normal(size=1))]


def items_loss(params, x):
    total = 0.0
    for name, value in params.items():
        if name != "skip":
            total = total + np.sum(value * value) * len(params)
    return total + np.sum(x)


def items_params():
    return {"a": RNG.normal(size=3), "b": 2.0, "skip": "tag", "n": 3}


CASES = {
    "dict": (two_layer, dict_params),
    "list": (list_of_shapes, list_params),
    "tuple_unpacked": (unpacked, tuple_params),
    "namedtuple": (namedtuple_loss, namedtuple_params),
    "dataclass_method": (dataclass_loss, dataclass_params),
    "list_of_layer_tuples": (layers_loss, layer_params),
    "dict_items_with_static_leaves": (items_loss, items_params),
}


def _tangent(tree):
    return tree_map_paths(tree, lambda p, leaf: None if isinstance(leaf, (str, int)) and
                          not isinstance(leaf, float) else
                          type(leaf)(RNG.normal(size=np.shape(leaf)))
                          if isinstance(leaf, (float, np.generic)) else
                          RNG.normal(size=np.shape(leaf)))


@pytest.fixture(autouse=True)
def _fresh():
    sg.clear_cache()


@pytest.mark.parametrize("case", CASES)
def test_grad_of_a_structured_argument_keeps_its_containers_and_leaf_types(case):
    fn, make = CASES[case]
    params = make()
    g = sg.grad(fn)
    for _ in range(2):  # the first call compiles; the second runs the generated guard
        got = g(params, X)
        assert_tree_close(got, numeric_tree_gradient(fn, [params, X], 0))
        assert_leaf_types(got, params)


@pytest.mark.parametrize("case", CASES)
def test_value_and_grad_with_a_structured_argument_and_a_flat_one(case):
    fn, make = CASES[case]
    params = make()
    vg = sg.value_and_grad(fn, wrt=(0, 1))
    for _ in range(2):
        value, (gp, gx) = vg(params, X)
        assert_close(value, fn(params, X), what="value")
        assert_tree_close(gp, numeric_tree_gradient(fn, [params, X], 0))
        assert_close(gx, numeric_gradient(fn, [params, X], None, 1))


@pytest.mark.parametrize("case", CASES)
def test_vjp_of_a_structured_argument_scales_with_the_seed(case):
    fn, make = CASES[case]
    params = make()
    pb = sg.vjp(fn)
    for _ in range(2):
        got = pb(params, X, 2.5)
        assert_tree_close(got, numeric_tree_gradient(fn, [params, X], 0, seed=2.5))
        assert_leaf_types(got, params)


@pytest.mark.parametrize("case", CASES)
def test_jvp_takes_a_tangent_structured_like_the_argument(case):
    fn, make = CASES[case]
    params = make()
    tangent = _tangent(params)
    expected = _dot_trees(numeric_tree_gradient(fn, [params, X], 0), tangent)
    fw = sg.jvp(fn)
    for _ in range(2):
        value, t = fw(params, X, tangent)
        assert_close(value, fn(params, X), what="value")
        assert_close(t, expected, what="tangent")


@pytest.mark.parametrize("case", CASES)
def test_hessian_in_a_flat_argument_with_a_structured_one_carried_along(case):
    fn, make = CASES[case]
    params = make()
    H = sg.hessian(fn, wrt=1)(params, X)
    gx = sg.grad(fn, wrt=1)
    assert_close(H, numeric_hessian(gx, [params, X], 1), what="hessian")


def test_grad_of_grad_in_a_scalar_with_a_dict_argument():
    def f(params, t):
        return np.sum(params["w"]) * t ** 3 + params["c"] * np.sin(t)
    params = {"w": RNG.normal(size=3), "c": 0.5}
    gg = sg.grad(sg.grad(f, wrt=1), wrt=1)
    g = sg.grad(f, wrt=1)
    assert_close(gg(params, 0.8), numeric_gradient(g, [params, 0.8], None, 1))


def test_a_list_argument_of_arrays_of_different_shapes_differentiates():
    xs = [np.ones(2), np.ones(3)]

    def f(xs):
        return np.sum(xs[0]) + np.sum(xs[1] ** 2)
    got = sg.grad(f)(xs)
    assert type(got) is list and len(got) == 2
    assert_tree_close(got, numeric_tree_gradient(f, [xs], 0))


def test_flat_dict_of_floats_gradient_is_a_dict_of_floats():
    def f(val):
        return val["a"] * val["b"] + val["c"]
    val = {"a": 1.0, "b": 2.0, "c": 3.0}
    got = sg.grad(f)(val)
    assert got == {"a": 2.0, "b": 1.0, "c": 1.0}
    assert all(type(v) is float for v in got.values())


def test_a_changed_structure_compiles_a_new_version():
    def f(params):
        total = 0.0
        for v in params.values():
            total = total + np.sum(v)
        return total
    g = sg.grad(f)
    assert set(g({"a": np.ones(2)})) == {"a"}
    got = g({"a": np.ones(2), "b": 2.0})
    assert set(got) == {"a", "b"} and type(got["b"]) is float
    got = g({"b": np.ones(3), "a": np.ones(1)})
    assert list(got) == ["b", "a"] and got["b"].shape == (3,)


def test_a_dict_built_inside_the_function_differentiates_in_both_modes():
    def f(x):
        d = dict({"a": x})
        e = {"b": x * 2.0}
        e["c"] = d["a"] * 3.0
        return np.sum(d["a"] * e["b"] + e["c"])
    x = RNG.normal(size=3)
    assert_close(sg.grad(f)(x), numeric_gradient(f, [x], None, 0))
    t = RNG.normal(size=3)
    value, tangent = sg.jvp(f)(x, t)
    assert type(tangent) in (float, np.float64)
    assert_close(tangent, float(numeric_gradient(f, [x], None, 0) @ t))


def test_a_tangent_not_structured_like_the_argument_is_refused():
    with pytest.raises(sg.SrcGradError, match="structure"):
        sg.jvp(two_layer)(dict_params(), X, np.ones(3))


def test_tree_leaves_and_tree_map_keep_containers_and_static_leaves():
    params = {"W": np.ones((2, 2)), "layers": [(np.zeros(2), 1.5)], "name": "net", "n": 3,
              "pair": Pair(np.float64(2.0), 1.0), "lin": Linear(np.ones(2), 0.5)}
    leaves = sg.tree_leaves(params)
    assert len(leaves) == 7
    assert leaves[0] is params["W"] and leaves[2] == 1.5
    grads = sg.tree_map(lambda p: p * 0 + 1, params)
    new = sg.tree_map(lambda p, g: p - 0.5 * g, params, grads)
    assert type(new) is dict and list(new) == list(params)
    assert new["name"] == "net" and new["n"] == 3
    assert type(new["pair"]) is Pair and type(new["lin"]) is Linear
    assert type(new["layers"]) is list and type(new["layers"][0]) is tuple
    assert new["layers"][0][1] == 1.0 and type(new["pair"].w) is np.float64
    assert new["lin"].activation == "tanh"
    with pytest.raises(TypeError):
        sg.tree_map(lambda a, b: a + b, {"a": 1.0}, {"b": 1.0})


# --- refusals: writes into what the function was given ----------------------------------------

def writes_into_dict_argument(params, x):
    params["W"] = x  # <- error
    return np.sum(params["W"])


def appends_to_list_argument(layers, x):
    layers.append(x)  # <- error
    return np.sum(layers[0])


def updates_dict_argument(params, x):
    params.update({"W": x})  # <- error
    return np.sum(params["W"])


def writes_attribute_of_dataclass_argument(model, x):
    model.b = 2.0  # <- error
    return np.sum(model.predict(x))


def _line_of_error_marker(fn):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, t in enumerate(lines) if "# <- error" in t)


@pytest.mark.parametrize("fn, arg, words", [
    (writes_into_dict_argument, lambda: {"W": np.ones(3)}, ("dict", "mutate", "new")),
    (appends_to_list_argument, lambda: [np.ones(3)], ("append", "list", "mutate")),
    (updates_dict_argument, lambda: {"W": np.ones(3)}, ("update", "dict", "mutate")),
    (writes_attribute_of_dataclass_argument, dataclass_params, ("attribute",)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_write_into_a_container_argument_is_refused_at_the_users_line(fn, arg, words):
    given = arg()
    before = repr(given)
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn, wrt=1)(given, X)
    message = str(info.value)
    assert f"{__file__}:{_line_of_error_marker(fn)}" in message
    for w in words:
        assert w in message.lower()
    assert info.value.advice
    assert repr(given) == before  # nothing of the caller's data was changed


def test_writes_into_a_dict_and_list_the_function_built_are_fine():
    def f(params, x):
        own = dict(params)
        own["W"] = own["W"] * x
        acc = []
        acc.append(own["W"])
        return np.sum(acc[0])
    params = {"W": RNG.normal(size=3)}
    assert_tree_close(sg.grad(f)(params, X), numeric_tree_gradient(f, [params, X], 0))
    assert_close(sg.grad(f, wrt=1)(params, X), numeric_gradient(f, [params, X], None, 1))


# --- structured results: vjp seeds and jvp tangents structured like the result ----------------

def dict_result(x):
    return {"norm": np.sum(x * x), "shifted": np.sin(x) + 1.0}


def namedtuple_result(x):
    return Pair(np.exp(x), np.sum(x) * 2.0)


def dataclass_result(x):
    return Linear(np.outer(x, x), np.sum(x) ** 2)


def nested_result(x):
    return [{"a": x * 2.0}, (np.sum(x), {"b": np.cos(x)})]


RESULTS = {"dict": dict_result, "namedtuple": namedtuple_result,
           "dataclass": dataclass_result, "nested": nested_result}


def _seed_like(out):
    return tree_map_paths(out, lambda p, leaf: None if isinstance(leaf, str) else
                          RNG.normal(size=np.shape(leaf)))


def _dot_trees(a, b):
    pairs = []
    tree_map_paths(a, lambda p, leaf: pairs.append(p))
    total = 0.0
    for path in pairs:
        u, v = a, b
        for k in path:
            u = getattr(u, k) if dataclasses.is_dataclass(u) else u[k]
            v = getattr(v, k) if dataclasses.is_dataclass(v) else v[k]
        if not isinstance(u, str) and u is not None and v is not None:
            total += float(np.sum(np.asarray(u) * np.asarray(v)))
    return total


@pytest.mark.parametrize("case", RESULTS)
def test_vjp_takes_a_seed_structured_like_a_structured_result(case):
    fn = RESULTS[case]
    seed = _seed_like(fn(X))
    pb = sg.vjp(fn)
    want = numeric_gradient(lambda x: _dot_trees(fn(x), seed), [X], None, 0)
    for _ in range(2):
        assert_close(pb(X, seed), want)


@pytest.mark.parametrize("case", RESULTS)
def test_jvp_returns_value_and_tangent_structured_like_the_result(case):
    fn = RESULTS[case]
    t = RNG.normal(size=3)
    fw = sg.jvp(fn)
    want = directional_tree_difference(lambda s: fn(X + s * t))
    for _ in range(2):
        value, tangent = fw(X, t)
        assert_tree_close(value, fn(X), rtol=1e-12, atol=1e-12)
        assert_tree_close(tangent, want)


def test_a_seed_not_structured_like_the_result_is_refused():
    with pytest.raises(sg.SrcGradError, match="seed must be structured like the result"):
        sg.vjp(dict_result)(X, 1.0)


def test_dict_builtin_with_keywords_and_a_mapping_inside_the_function():
    def f(x):
        d = dict(a=x, b=x * x)
        e = dict(d)
        e["c"] = np.sin(x)
        return np.sum(e["a"] * e["b"] + e["c"])
    assert_close(sg.grad(f)(X), numeric_gradient(f, [X], None, 0))
    t = RNG.normal(size=3)
    assert_close(sg.jvp(f)(X, t)[1], numeric_gradient(f, [X], None, 0) @ t)
    assert_close(sg.hessian(f)(X), numeric_hessian(sg.grad(f), [X], 0))


# --- second order and Jacobians over structures: nested blocks --------------------------------

def curved(params):
    return np.sum(params["a"] ** 2 * params["b"]) + params["b"] ** 3 + \
        np.sum(np.sin(params["a"]) * params["c"][0])


def curved_params():
    return {"a": RNG.normal(size=2), "b": 1.3, "c": [RNG.normal(size=2)]}


def _key_grad(params, key_path):
    """The gradient's leaf at ``key_path`` as a function of params (for the reference)."""
    def leaf(p):
        g = sg.grad(curved)(p)
        for k in key_path:
            g = g[k]
        return g
    return leaf


def test_hessian_over_a_dict_is_nested_blocks_checked_against_finite_differences():
    params = curved_params()
    H = sg.hessian(curved)(params)
    assert type(H) is dict and list(H) == ["a", "b", "c"]
    assert type(H["a"]) is dict and type(H["c"]) is list and type(H["c"][0]) is dict
    g = sg.grad(curved)
    gref = numeric_tree_gradient(curved, [params], 0)
    assert_tree_close(g(params), gref)  # the gradient differenced below is right
    for out_path in (("a",), ("b",), ("c", 0)):
        def g_leaf(p, out_path=out_path):
            v = g(p)
            for k in out_path:
                v = v[k]
            return v
        block = H
        for k in out_path:
            block = block[k]
        # d (gradient leaf) / d (each input leaf): one column of leaves per input leaf
        for in_path, shape in ((("a",), (2,)), (("b",), ()), (("c", 0), (2,))):
            want = _leaf_jacobian(g_leaf, params, in_path)
            got = block
            for k in in_path:
                got = got[k]
            assert_close(got, want, what=f"H{list(out_path)}{list(in_path)}")


def _leaf_jacobian(fn, params, in_path):
    from fd import numeric_jacobian, tree_map_paths

    def moved(v):
        return fn(tree_map_paths(params, lambda p, leaf: v if p == in_path else leaf))
    leaf = params
    for k in in_path:
        leaf = leaf[k]
    return numeric_jacobian(moved, [leaf], 0)


def test_jvp_of_grad_over_a_dict_is_a_hessian_vector_product():
    params = curved_params()
    t = {"a": RNG.normal(size=2), "b": 0.7, "c": [RNG.normal(size=2)]}
    g = sg.grad(curved)
    want = directional_tree_difference(lambda s: g(
        {"a": params["a"] + s * t["a"], "b": params["b"] + s * t["b"],
         "c": [params["c"][0] + s * t["c"][0]]}))
    value, tangent = sg.jvp(g)(params, t)
    assert_tree_close(value, g(params), rtol=1e-12, atol=1e-12)
    assert_tree_close(tangent, want)


def test_jacobian_of_a_dict_result_and_of_a_dict_argument():
    J = sg.jacobian(dict_result)(X)
    assert type(J) is dict and list(J) == ["norm", "shifted"]
    assert_close(J["norm"], numeric_gradient(lambda x: dict_result(x)["norm"], [X], None, 0))
    from fd import numeric_jacobian
    assert_close(J["shifted"], numeric_jacobian(lambda x: dict_result(x)["shifted"], [X], 0))
    params = {"w": RNG.normal(size=3), "s": 0.5}
    J = sg.jacobian(lambda p: np.tanh(p["w"]) * p["s"])(params)
    assert type(J) is dict and J["w"].shape == (3, 3) and np.shape(J["s"]) == (3,)
    assert_close(J["w"], numeric_jacobian(lambda w: np.tanh(w) * 0.5, [params["w"]], 0))
    assert_close(J["s"], np.tanh(params["w"]))


def test_a_derived_function_called_inside_with_a_dict_differentiates_through_it():
    g = sg.grad(curved)

    def outer(params):
        grads = g(params)
        return np.sum(grads["a"] ** 2) + grads["b"] * grads["c"][0][0]
    params = curved_params()
    got = sg.grad(outer)(params)
    assert_tree_close(got, numeric_tree_gradient(outer, [params], 0), rtol=1e-5, atol=1e-6)
    t = {"a": RNG.normal(size=2), "b": 0.3, "c": [RNG.normal(size=2)]}
    value, tangent = sg.jvp(outer)(params, t)
    want = _dot_trees(numeric_tree_gradient(outer, [params], 0), t)
    assert_close(tangent, want, rtol=1e-5, atol=1e-6)

    def through_jvp(params):
        _, tan = sg.jvp(curved)(params, {"a": np.ones(2), "b": 1.0, "c": [np.zeros(2)]})
        return tan
    assert_tree_close(sg.grad(through_jvp)(params),
                      numeric_tree_gradient(through_jvp, [params], 0), rtol=1e-5, atol=1e-6)


def test_hessian_and_jacobian_with_a_tuple_wrt_of_a_dict_and_an_array():
    def f(params, x):
        return np.sum(np.tanh(params["W"] * x)) * params["s"]
    params, x = {"W": RNG.normal(size=2), "s": 1.5}, RNG.normal(size=2)
    Jp, Jx = sg.jacobian(f, wrt=(0, 1))(params, x)
    assert_tree_close(Jp, numeric_tree_gradient(f, [params, x], 0))
    assert_close(Jx, numeric_gradient(f, [params, x], None, 1))
    (Hpp, Hpx), (Hxp, Hxx) = sg.hessian(f, wrt=(0, 1))(params, x)
    gx = sg.grad(f, wrt=1)
    assert_close(Hxx, numeric_hessian(gx, [params, x], 1))
    # Hxp[in_key] = d (df/dx) / d params[in_key]; Hpx[out_key] = d (df/dparams[out_key]) / dx
    from fd import numeric_jacobian
    assert_close(Hxp["W"], numeric_jacobian(lambda W: gx({**params, "W": W}, x),
                                            [params["W"]], 0))
    gp = sg.grad(f, wrt=0)
    assert_close(Hpx["W"], numeric_jacobian(lambda x: gp(params, x)["W"], [x], 0))
    assert_close(Hpp["s"]["W"], numeric_jacobian(lambda W: gp({**params, "W": W}, x)["s"],
                                                 [params["W"]], 0))


def test_a_partial_binding_a_dict_reads_it_when_the_derivative_runs():
    import functools

    def f(params, x):
        return np.sum(np.tanh(params["W"] * x)) * params["s"]
    params = {"W": RNG.normal(size=2), "s": 1.5}
    part = functools.partial(f, params)
    g = sg.grad(part)
    assert_close(g(X[:2]), numeric_gradient(part, [X[:2]], None, 0))
    params["W"][0] += 1.0  # changed in place: the next call sees it
    assert_close(g(X[:2]), numeric_gradient(part, [X[:2]], None, 0))


def test_setattr_on_a_dataclass_argument_is_refused_like_an_attribute_write():
    def f(model, x):
        setattr(model, "b", 2.0)  # <- error
        return np.sum(model.predict(x))
    model = dataclass_params()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(f, wrt=1)(model, X)
    assert "setattr" in str(info.value) and f"{__file__}:" in str(info.value)
    assert model.b == 0.2


def test_a_field_read_in_a_version_that_does_not_know_the_structure_gets_structure_advice():
    from srcgrad.compiler.api import render

    with pytest.raises(sg.SrcGradError) as info:
        render(dataclass_loss, types=["other", "array[1]"])  # the object as `other`
    message = str(info.value)
    assert "`.predict` is not an attribute of an array" in message
    assert "np.predict" not in message and "dataclass" in message
