"""Bound methods, ``wrt="self"``, ``functools.partial`` and attributes of captured objects.

API.md "Structured arguments" and "Captured values": ``sg.grad(model.loss)`` differentiates
w.r.t. the method's own parameters and reads ``self`` when it runs; ``sg.grad(Class.method,
wrt="self")`` gives a gradient of ``self``'s type; a partial is differentiated like the
function it wraps, its bound arguments read at run time; ``obj.W`` of a captured object is
never baked into the emitted source. Each checked against central finite differences in
reverse and forward mode, and at second order.
"""

from __future__ import annotations

import collections
import functools

import numpy as np
import pytest
from fd import (
    assert_close,
    numeric_gradient,
    numeric_hessian,
)

import srcgrad as sg

RNG = np.random.default_rng(7)
X = RNG.normal(size=3)


class Layer:
    def __init__(self, n):
        self.W = RNG.normal(size=(n, n)) * 0.5
        self.b = 0.1

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


class Model:
    def __init__(self):
        self.layer = Layer(3)
        self.w = RNG.normal(size=3)
        self.scale = 1.5

    def features(self, x):
        return self.layer(x) * self.w

    def loss(self, x):
        return np.sum(self.features(x) ** 2) * self.scale


@pytest.fixture(autouse=True)
def _fresh():
    sg.clear_cache()


def test_grad_of_a_bound_method_differentiates_its_own_parameters():
    model = Model()
    g = sg.grad(model.loss)
    for _ in range(2):
        assert_close(g(X), numeric_gradient(model.loss, [X], None, 0))


def test_a_bound_method_reads_self_when_the_derivative_runs():
    model = Model()
    g = sg.grad(model.loss)
    g(X)
    model.w = RNG.normal(size=3)  # a rebound attribute
    model.layer.W *= 2.0  # an array changed in place, two attributes deep
    model.scale = 0.25
    assert_close(g(X), numeric_gradient(model.loss, [X], None, 0))
    text = sg.source(g, X)
    assert "__self__" in text and "array(" not in text


def test_jvp_value_and_grad_and_vjp_of_a_bound_method():
    model = Model()
    t = RNG.normal(size=3)
    value, tangent = sg.jvp(model.loss)(X, t)
    assert_close(value, model.loss(X), what="value")
    assert_close(tangent, numeric_gradient(model.loss, [X], None, 0) @ t, what="tangent")
    value, grad = sg.value_and_grad(model.loss)(X)
    assert_close(grad, numeric_gradient(model.loss, [X], None, 0))
    assert_close(sg.vjp(model.features)(X, t),
                 numeric_gradient(model.features, [X], None, 0, seed=t))


def test_hessian_of_a_bound_method():
    model = Model()
    H = sg.hessian(model.loss)(X)
    assert_close(H, numeric_hessian(sg.grad(model.loss), [X], 0), what="hessian")


def _attribute_gradient(model, path, x):
    """d model.loss(x) / d (the attribute at ``path``), by central differences on copies."""
    import copy

    def holder_of(m):
        for name in path[:-1]:
            m = getattr(m, name)
        return m

    def loss_at(value):
        m = copy.deepcopy(model)
        setattr(holder_of(m), path[-1], value)
        return m.loss(x)
    return numeric_gradient(loss_at, [getattr(holder_of(model), path[-1])], None, 0)


def test_wrt_self_gives_a_gradient_of_selfs_type():
    model = Model()
    got = sg.grad(Model.loss, wrt="self")(model, X)
    assert type(got) is Model and type(got.layer) is Layer
    assert type(got.scale) is float and type(got.layer.b) is float
    for path in (("w",), ("scale",), ("layer", "W"), ("layer", "b")):
        value = got
        for name in path:
            value = getattr(value, name)
        assert_close(value, _attribute_gradient(model, path, X), what=".".join(path))
    value, tangent = sg.jvp(Model.loss, wrt="self")(model, X, sg.tree_map(np.ones_like, got))
    expected = sum(float(np.sum(_attribute_gradient(model, p, X))) for p in
                   (("w",), ("scale",), ("layer", "W"), ("layer", "b")))
    assert_close(tangent, expected, what="tangent")


def weighted(a, b, scale=1.0):
    return np.sum(np.sin(a) * b) * scale


def test_partial_with_bound_keywords_and_positionals_differentiates_like_its_function():
    b = RNG.normal(size=3)
    p = functools.partial(weighted, b=b, scale=2.0)
    assert_close(sg.grad(p)(X), numeric_gradient(p, [X], None, 0))
    q = functools.partial(weighted, X)  # binds a: differentiate w.r.t. b
    g = sg.grad(q)
    assert_close(g(b), numeric_gradient(q, [b], None, 0))
    X[...] *= 2.0  # the bound array changed in place: read when the derivative runs
    try:
        assert_close(g(b), numeric_gradient(q, [b], None, 0))
    finally:
        X[...] /= 2.0
    t = RNG.normal(size=3)
    assert_close(sg.jvp(q)(b, t)[1], numeric_gradient(q, [b], None, 0) @ t)
    assert_close(sg.hessian(p)(X), numeric_hessian(sg.grad(p), [X], 0))


CAPTURED = Model()


def uses_a_captured_object(x):
    return CAPTURED.loss(x) + np.sum(CAPTURED.w * x)


def test_attributes_of_a_captured_object_are_read_at_run_time():
    g = sg.grad(uses_a_captured_object)
    assert_close(g(X), numeric_gradient(uses_a_captured_object, [X], None, 0))
    old = CAPTURED.w
    CAPTURED.w = RNG.normal(size=3)
    try:
        assert_close(g(X), numeric_gradient(uses_a_captured_object, [X], None, 0))
        assert "array(" not in sg.source(g, X)
        CAPTURED.w = np.ones((3, 1))  # another ndim: the guard sees it and recompiles
        assert_close(g(X), numeric_gradient(uses_a_captured_object, [X], None, 0))
    finally:
        CAPTURED.w = old


class Writes:
    def __init__(self):
        self.w = 1.0

    def step(self, x):
        self.w = x  # <- error
        return x * 2.0


def test_an_attribute_write_in_a_bound_method_is_refused():
    obj = Writes()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(obj.step)(1.0)
    assert "attribute" in str(info.value) and f"{__file__}:" in str(info.value)
    assert obj.w == 1.0


class WithProperty:
    def __init__(self):
        self._w = RNG.normal(size=3)

    @property
    def w(self):
        return self._w * 2.0


HOLDER = WithProperty()


def reads_a_property(x):
    return np.sum(HOLDER.w * x ** 2)


def test_a_property_of_a_captured_object_is_computed_when_the_derivative_runs():
    g = sg.grad(reads_a_property)
    assert_close(g(X), numeric_gradient(reads_a_property, [X], None, 0))
    HOLDER._w = RNG.normal(size=3)
    assert_close(g(X), numeric_gradient(reads_a_property, [X], None, 0))


def test_a_closure_captured_object_is_read_at_run_time():
    model = Model()

    def f(x):
        return np.sum(model.w * np.sin(x))
    g = sg.grad(f)
    assert_close(g(X), numeric_gradient(f, [X], None, 0))
    model.w = model.w + 1.0
    assert_close(g(X), numeric_gradient(f, [X], None, 0))


class Growing:
    def __init__(self):
        self.w = RNG.normal(size=3)

    def loss(self, x):
        extra = self.extra if hasattr(self, "extra") else 0.0
        return np.sum(self.w * x) + extra * np.sum(x)


def test_an_object_argument_that_gains_an_attribute_compiles_a_new_version():
    obj = Growing()
    g = sg.grad(Growing.loss, wrt=("self", "x"))
    gs, gx = g(obj, X)
    assert set(vars(gs)) == {"w"}
    assert_close(gx, obj.w)
    obj.extra = 2.0
    gs, gx = g(obj, X)
    assert set(vars(gs)) == {"w", "extra"} and type(gs.extra) is float
    assert_close(gx, obj.w + 2.0)
    assert_close(gs.extra, np.sum(X))


def test_a_dict_argument_with_keys_srcgrad_cannot_write_is_refused():
    import enum

    class Key(enum.Enum):
        W = 1

    with pytest.raises(sg.SrcGradError, match="key"):
        sg.grad(lambda p: np.sum(p[Key.W]))({Key.W: X})


Config = collections.namedtuple("Config", "w scale")
CONFIG = Config(RNG.normal(size=3), 2.0)


def reads_a_captured_namedtuple(x):
    return np.sum(CONFIG.w * np.sin(x)) * CONFIG.scale


def test_a_captured_namedtuple_is_read_at_run_time():
    global CONFIG
    g = sg.grad(reads_a_captured_namedtuple)
    assert_close(g(X), numeric_gradient(reads_a_captured_namedtuple, [X], None, 0))
    assert "array(" not in sg.source(g, X)
    old = CONFIG
    try:
        CONFIG = Config(RNG.normal(size=3), 0.5)
        assert_close(g(X), numeric_gradient(reads_a_captured_namedtuple, [X], None, 0))
        CONFIG.w[...] += 1.0
        assert_close(g(X), numeric_gradient(reads_a_captured_namedtuple, [X], None, 0))
    finally:
        CONFIG = old


def test_a_callable_object_is_differentiated_through_its_call_method():
    layer = Layer(3)
    g = sg.grad(lambda x: np.sum(layer(x)))
    direct = sg.vjp(layer)
    seed = RNG.normal(size=3)
    assert_close(direct(X, seed), numeric_gradient(layer, [X], None, 0, seed=seed))
    layer.W = layer.W * 2.0  # read when the derivative runs
    assert_close(direct(X, seed), numeric_gradient(layer, [X], None, 0, seed=seed))
    assert_close(g(X), numeric_gradient(lambda x: np.sum(layer(x)), [X], None, 0))


class Node:
    def __init__(self, parent=None):
        self.w = RNG.normal(size=3)
        self.parent = parent
        self.children = []


def test_an_object_argument_that_refers_back_to_itself_is_refused():
    root = Node()
    root.children.append(Node(root))
    with pytest.raises(sg.SrcGradError, match="refers back to itself"):
        sg.grad(lambda n, x: np.sum(n.w * x))(root, X)
