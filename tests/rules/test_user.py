"""``sg.defvjp`` / ``sg.defjvp``: user rules land in the one table, on arrays and on the
recording array-like alike."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import RULES, forward_tangent, generation, rule_for
from srcgrad.rules.registry import restore, snapshot

from . import checker
from .recording import Recorded, Tape, backprop
from .samples import Sample


@pytest.fixture(autouse=True)
def _clean_table():
    state = snapshot()
    yield
    restore(state)


def cube(x):
    return x * x * x


def scaled_sin(x, scale=2.0):
    return scale * np.sin(x)


def powered(x, *, power=2):
    return x ** power


def test_defvjp_registers_a_user_rule_found_by_function_and_wrapper():
    before = generation()
    wrapped = sg.defvjp(cube, lambda g, out, x: g * 3 * x * x)
    assert generation() != before
    rule = rule_for(cube)
    assert rule is not None and rule.user and rule is rule_for(wrapped)
    assert RULES[rule.name] is rule
    assert rule.inputs == ("x",) and rule.needs["x"] == ("g", "out", "x")
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(wrapped(x), cube(x))
    for s in [Sample({"x": x}), Sample({"x": np.array(1.5)})]:
        checker.check_vjp(rule, s)
    assert not rule.has_forward("x")
    with pytest.raises(LookupError, match="sg.defjvp"):
        forward_tangent(rule, {"x": x, "out": cube(x)}, {"x": np.ones(3)})


def test_defjvp_adds_to_the_same_rule_in_either_order():
    w1 = sg.defvjp(cube, lambda g, out, x: g * 3 * x * x)
    w2 = sg.defjvp(cube, lambda t, out, x: t * 3 * x * x)
    assert w1 is w2
    rule = rule_for(cube)
    assert set(rule.vjp) == set(rule.jvp) == {"x"}
    sample = Sample({"x": np.array([0.5, -1.0, 2.0])})
    checker.check_forward(rule, sample)

    w3 = sg.defjvp(scaled_sin, lambda t, out, x, scale: t * scale * np.cos(x))
    sg.defvjp(scaled_sin, lambda g, out, x, scale: g * scale * np.cos(x))
    rule = rule_for(w3)
    assert set(rule.jvp) == {"x"} and set(rule.vjp) == {"x"}
    checker.check_forward(rule, Sample({"x": np.array([0.3, 0.7]), "scale": 3.0}))


def test_none_and_trailing_rules_mark_arguments_without_derivative():
    sg.defvjp(scaled_sin, None, lambda g, out, x, scale: np.sum(g * np.sin(x)))
    rule = rule_for(scaled_sin)
    assert rule.inputs == ("x", "scale") and set(rule.vjp) == {"scale"}
    checker.check_vjp(rule, Sample({"x": np.array([0.3, 0.7]), "scale": np.array(3.0)}))
    sg.defvjp(scaled_sin, lambda g, out, x: g * 2.0 * np.cos(x))  # scale left out
    assert set(rule_for(scaled_sin).vjp) == {"x"}


def test_a_rule_gets_only_the_arguments_it_asks_for():
    seen = {}

    def vjp_x(g, out, x, scale):
        seen["args"] = (out, x, scale)
        return g * scale * np.cos(x)

    sg.defvjp(scaled_sin, vjp_x)
    rule = rule_for(scaled_sin)
    env = rule.bind((np.array(0.5),), {})  # scale from its default
    out = rule.apply(env)
    ct = rule.call_vjp("x", {**env, "out": out, "g": 1.0})
    assert seen["args"][2] == 2.0
    np.testing.assert_allclose(ct, 2.0 * np.cos(0.5))


def test_keyword_only_parameters_become_params():
    sg.defvjp(powered, lambda g, out, x, power: g * power * x ** (power - 1))
    rule = rule_for(powered)
    assert rule.inputs == ("x",) and rule.params == ("power",)
    assert rule.bind((np.array(2.0),), {"power": 3}) == {"x": 2.0, "power": 3}
    checker.check_vjp(rule, Sample({"x": np.array([1.5, 2.0]), "power": 3}))


def test_straight_through_round_replaces_the_nondiff_rule():
    assert RULES["round"].kind == "nondiff"
    wrapped = sg.defvjp(np.round, lambda g, out, x: g)
    rule = rule_for(np.round)
    assert rule.user and rule.name == "round" and rule is rule_for(np.around)
    assert rule is rule_for(wrapped)
    x = np.array([0.4, 1.6, -2.5])
    np.testing.assert_array_equal(wrapped(x), np.round(x))
    env = {**rule.bind((x,), {}), "out": np.round(x), "g": np.full(3, 2.0)}
    np.testing.assert_array_equal(rule.call_vjp("x", env), np.full(3, 2.0))


def test_the_wrapper_dispatches_on_foreign_array_types():
    wrapped = sg.defvjp(cube, lambda g, out, x: g * 3 * x * x)
    tape = Tape()
    x = tape.wrap(np.array([1.0, 2.0]))
    y = wrapped(x)
    assert isinstance(y, Recorded)
    assert tape.calls[-1].func is wrapped and rule_for(tape.calls[-1].func) is rule_for(cube)
    s = np.sum(y * 1.0)
    cts = backprop(tape, s, 1.0)
    np.testing.assert_allclose(cts[id(x)], 3 * np.array([1.0, 4.0]))


def test_np_round_wrapper_records_and_differentiates_straight_through():
    wrapped = sg.defvjp(np.round, lambda g, out, x: g)
    tape = Tape()
    x = tape.wrap(np.array([0.4, 1.6]))
    s = np.sum(wrapped(x) * 3.0)
    np.testing.assert_allclose(backprop(tape, s, 1.0)[id(x)], [3.0, 3.0])


def test_a_ufunc_without_a_rule_takes_its_operands():
    # (np.cbrt and np.conjugate have rules of their own now: np.float_power has none)
    assert rule_for(np.float_power) is None
    sg.defvjp(np.float_power, lambda g, out, x, y: g * y * np.float_power(x, y - 1),
              lambda g, out, x, y: g * out * np.log(x))
    rule = rule_for(np.float_power)
    assert rule.inputs == ("x0", "x1")
    checker.check_vjp(rule, Sample({"x0": np.array([0.5, 2.0, 8.0]),
                                    "x1": np.array([1.5, 0.7, 2.0])}))


def test_parameter_names_that_collide_with_rule_names_are_renamed():
    def shifted(g, out):
        return g + 2 * out

    sg.defvjp(shifted, lambda g, out, a, b: g, lambda g, out, a, b: 2 * g)
    rule = rule_for(shifted)
    assert rule.inputs == ("g_", "out_")
    checker.check_vjp(rule, Sample({"g_": np.array([1.0, 2.0]), "out_": np.array([3.0, 4.0])}))


@pytest.mark.parametrize("call, message", [
    (lambda: sg.defvjp(3.0, None), "function to give derivatives to"),
    (lambda: sg.defvjp(cube, "not a rule"), "must be a function or None"),
    (lambda: sg.defvjp(cube, None, None), "takes 1 positional argument"),
    (lambda: sg.defvjp(lambda *xs: xs, None), r"takes \*xs"),
    (lambda: sg.defvjp(lambda x, **kw: x, None), r"\*\*kw"),
])
def test_misuse_raises_a_clear_type_error(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_same_named_functions_get_rules_of_their_own():
    def make(k):
        def f(x):
            return k * x
        return f

    f1, f2 = make(2.0), make(3.0)
    w1 = sg.defvjp(f1, lambda g, out, x: 2.0 * g)
    w2 = sg.defvjp(f2, lambda g, out, x: 3.0 * g)
    assert rule_for(f1) is not rule_for(f2)
    assert w1(1.0) == 2.0 and w2(1.0) == 3.0
