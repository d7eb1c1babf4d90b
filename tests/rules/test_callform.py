"""Call forms: a concrete call binds to a rule's names and back, for every rule."""

from __future__ import annotations

import numpy as np
import pytest

from srcgrad.rules import RULES, rule_for, rule_named
from srcgrad.rules.callform import parse_form

from .samples import SAMPLES


@pytest.mark.parametrize("name", sorted(n for n in RULES if SAMPLES.get(n)))
def test_call_args_bind_back_to_the_same_environment(name):
    rule = RULES[name]
    env = SAMPLES[name][0].env
    args, kwargs = rule.call_form.call_args(env)
    rebound = rule.bind(args, kwargs)
    assert rebound.keys() == env.keys()
    for k in env:
        assert rebound[k] is env[k] or (
            isinstance(env[k], list) and all(a is b for a, b in zip(rebound[k], env[k])))


@pytest.mark.parametrize("fn, args, kwargs, want", [
    (np.sum, ("X",), {}, {"x": "X", "axis": None, "keepdims": False}),
    (np.sum, ("X", 1), {"keepdims": True}, {"x": "X", "axis": 1, "keepdims": True}),
    (np.var, ("X",), {"ddof": 1}, {"x": "X", "axis": None, "ddof": 1, "keepdims": False}),
    (np.reshape, ("X", (2, 3)), {}, {"x": "X", "shape": (2, 3)}),
    (np.concatenate, (["A", "B"],), {"axis": 1},
     {"xs": ["A", "B"], "axis": 1, "dtype": None, "casting": "same_kind"}),
    (np.einsum, ("ij,jk", "A", "B"), {},
     {"subscripts": "ij,jk", "operands": ["A", "B"], "optimize": False}),
    (np.clip, ("X", None, 1.0), {}, {"x": "X", "a_min": None, "a_max": 1.0}),
    (np.linalg.norm, ("X", 2), {"axis": 0}, {"x": "X", "ord": 2, "axis": 0, "keepdims": False}),
    (np.add, ("X", "Y"), {}, {"x": "X", "y": "Y"}),
])
def test_numpy_calls_bind_to_rule_names(fn, args, kwargs, want):
    assert rule_for(fn).bind(args, kwargs) == want


def test_apply_calls_numpy_with_the_public_argument_order():
    x = np.arange(6.0).reshape(2, 3)
    rule = rule_named("sum")
    np.testing.assert_array_equal(rule.apply({"x": x, "axis": 0, "keepdims": True}),
                                  np.sum(x, 0, keepdims=True))
    e = rule_named("einsum")
    np.testing.assert_array_equal(
        e.apply({"subscripts": "ij->j", "operands": [x], "optimize": False}), x.sum(0))


@pytest.mark.parametrize("fn, args, kwargs, message", [
    (np.sum, ("X",), {"out": None}, "unexpected keyword argument 'out'"),
    (np.sin, ("X", "Y"), {}, "at most 1 positional"),
    (np.reshape, ("X",), {}, "missing required argument 'shape'"),
    (np.sum, ("X", 0), {"axis": 1}, "multiple values for argument 'axis'"),
])
def test_unsupported_calls_say_what_is_supported(fn, args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        rule_for(fn).bind(args, kwargs)


def test_metadata_gives_shapes_and_dtypes_the_rules_ask_for():
    rule = rule_named("concatenate")
    xs = [np.ones((2, 3)), np.ones((1, 3), dtype=np.float32)]
    assert rule.metadata({"xs": xs, "axis": 0}) == {
        "xs_shape": ((2, 3), (1, 3)), "xs_dtype": (np.dtype(np.float64), np.dtype(np.float32))}
    assert rule_named("astype").metadata({"x": np.ones(2, np.float32), "dtype": float}) == {
        "x_dtype": np.dtype(np.float32)}
    assert rule_named("sum").metadata({"x": 2.0, "x_shape": "given"}) == {}


def test_bad_forms_are_rejected_at_registration():
    with pytest.raises(ValueError, match="bad call form"):
        parse_form("f", "x, axis=")
    from srcgrad.rules import Rule
    with pytest.raises(ValueError, match="must name exactly"):
        Rule("f", np.sin, inputs=("x",), params=("axis",), form="x")
