"""The checker catches wrong rules: a rule off by 0.1% must fail, a right one must pass."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from srcgrad.rules import ELEMENTWISE, RULES, Rule, defrule
from srcgrad.rules.registry import restore, snapshot

from . import checker
from .samples import SAMPLES, Sample


def _variant(name: str, **changes) -> Rule:
    """A copy of the table's rule ``name`` with some fields replaced (not registered)."""
    rule = RULES[name]
    fields = {f.name: getattr(rule, f.name) for f in dataclasses.fields(Rule) if f.init}
    fields.update(changes)
    return Rule(**fields)


SIN_SAMPLES = [s for s in SAMPLES["sin"] if np.size(s.env["x"]) > 1]


@pytest.mark.parametrize("k", range(len(SIN_SAMPLES)))
def test_a_vjp_off_by_a_tenth_of_a_percent_is_caught(k):
    wrong = _variant("sin", vjp={"x": lambda g, x: g * np.cos(x) * 1.001})
    checker.check_vjp(RULES["sin"], SIN_SAMPLES[k])  # the real rule passes
    with pytest.raises(AssertionError, match="sin VJP wrt x"):
        checker.check_vjp(wrong, SIN_SAMPLES[k])


def test_a_wrong_explicit_jvp_is_caught():
    sample = SAMPLES["prod"][-1]
    right = RULES["prod"].jvp["x"]
    wrong = _variant("prod", jvp={"x": lambda t, x, x_shape, axis, keepdims:
                                  right(t, x, x_shape, axis, keepdims) * 1.001})
    checker.check_forward(RULES["prod"], sample)
    with pytest.raises(AssertionError, match="forward vs reverse"):
        checker.check_forward(wrong, sample)


def test_a_wrong_cotangent_shape_is_caught():
    wrong = _variant("sum", vjp={"x": lambda g: g})  # forgot to un-reduce
    sample = Sample({"x": np.ones((3, 2)), "axis": 0, "keepdims": False})
    with pytest.raises(AssertionError, match="shape"):
        checker.check_vjp(wrong, sample)


def test_a_float64_constant_is_caught():
    wrong = _variant("square", vjp={"x": lambda g, x: g * (np.float64(2.0) * x)})
    sample = SAMPLES["square"][1]
    checker.check_float32(RULES["square"], sample)
    with pytest.raises(AssertionError, match="float64 cotangent"):
        checker.check_float32(wrong, sample)


def test_second_order_catches_a_wrong_rule_inside_a_vjp():
    """sin's VJP calls np.cos: a wrong cos rule makes sin's second order wrong."""
    sample = SAMPLES["sin"][3]
    checker.check_second_order(RULES["sin"], sample)
    state = snapshot()
    try:
        defrule("cos", np.cos, inputs=("x",), kind=ELEMENTWISE,
                vjp={"x": lambda g, x: -g * np.sin(x) * 1.001})
        with pytest.raises(AssertionError, match="second order"):
            checker.check_second_order(RULES["sin"], sample)
    finally:
        restore(state)
    checker.check_second_order(RULES["sin"], sample)


def test_kind_elementwise_means_the_vjp_formula_is_the_jvp():
    # a non-diagonal rule wrongly marked ELEMENTWISE gives a wrong forward mode
    wrong = _variant("cumsum", kind=ELEMENTWISE)
    sample = SAMPLES["cumsum"][3]
    with pytest.raises(AssertionError):
        checker.check_forward(wrong, sample)
