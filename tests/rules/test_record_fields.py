"""The per-primitive facts of the rule record (DESIGN.md principle 1) agree with NumPy.

``view``/``fresh`` are one truth for the compiler (which refuses a write another name
would see, and writes in place only into arrays it owns) and the runtime (which makes a
Tensor a view when NumPy's result shares memory): checked here with ``np.shares_memory``
on every sample of every rule. ``operator`` is checked against the Python operator, the
method and attribute spellings against ``np.ndarray``.
"""

from __future__ import annotations

import operator as op
from typing import Any

import numpy as np
import pytest

from srcgrad.rules import RULES

from .samples import SAMPLES

_NUMPY_RULES = sorted(n for n, r in RULES.items() if not r.structural)


def _arrays(value: Any) -> list[np.ndarray]:
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    return []


def _shares(rule: Any, env: dict[str, Any]) -> tuple[bool, bool]:
    """(does the result share memory with the first input, with any input)."""
    out = _arrays(rule.apply(dict(env)))
    first = _arrays(env.get(rule.inputs[0])) if rule.inputs else []
    every = [a for n in rule.inputs for a in _arrays(env.get(n))]
    with_first = any(np.shares_memory(o, a) for o in out for a in first)
    with_any = any(np.shares_memory(o, a) for o in out for a in every)
    return with_first, with_any


@pytest.mark.parametrize("name", [n for n in _NUMPY_RULES if RULES[n].view])
def test_view_rules_share_memory_with_their_first_input_on_a_sample(name):
    rule = RULES[name]
    assert SAMPLES.get(name), f"rule {name!r} has no samples"
    assert any(_shares(rule, s.env)[0] for s in SAMPLES[name]), (
        f"rule {name!r} says view=True, but no sample's result shares memory with its first "
        "input: NumPy copies here; drop view=True")


@pytest.mark.parametrize("name", [n for n in _NUMPY_RULES if not RULES[n].view])
def test_rules_not_marked_view_never_share_memory_with_an_input(name):
    # a rule whose NumPy result can alias an input must say view=True: otherwise the
    # compiler misses a later write that the aliasing name sees (a silently wrong value)
    rule = RULES[name]
    for sample in SAMPLES.get(name, []):
        assert not _shares(rule, sample.env)[1], (
            f"rule {name!r} ({sample.label or sample.env.keys()}): NumPy's result shares "
            "memory with an input; give the rule view=True")


@pytest.mark.parametrize("name", [n for n in _NUMPY_RULES if RULES[n].fresh])
def test_fresh_rules_return_arrays_nothing_else_refers_to(name):
    # (or a NumPy scalar, for 0-d operands of a ufunc: a new value too)
    rule = RULES[name]
    for sample in SAMPLES.get(name, []):
        out = rule.apply(dict(sample.env))
        assert isinstance(out, (np.ndarray, np.generic)), type(out)
        if isinstance(out, np.ndarray):
            assert out.base is None and out.flags.owndata and out.flags.writeable


def test_view_and_fresh_exclude_each_other_and_compiler_and_runtime_only_too():
    for rule in RULES.values():
        assert not (rule.view and rule.fresh), rule.name
        assert not (rule.structural and rule.runtime_only), rule.name


_OPERATORS = {"+": op.add, "-": op.sub, "*": op.mul, "/": op.truediv, "**": op.pow,
              "@": op.matmul, "//": op.floordiv, "%": op.mod, "<": op.lt, "<=": op.le,
              ">": op.gt, ">=": op.ge, "==": op.eq, "!=": op.ne}


@pytest.mark.parametrize("name", [n for n in _NUMPY_RULES if RULES[n].operator])
def test_operator_spelling_computes_what_the_rule_computes(name):
    rule = RULES[name]
    assert SAMPLES.get(name), f"rule {name!r} has no samples"
    for sample in SAMPLES[name]:
        args = [sample.env[n] for n in rule.inputs]
        if len(args) == 1:
            assert rule.operator == "-", "the only unary operator spelling is negation"
            got = -args[0]
        else:
            got = _OPERATORS[rule.operator](*args)
        np.testing.assert_array_equal(got, rule.apply(dict(sample.env)))


def test_method_and_attribute_spellings_are_ndarray_members():
    for rule in RULES.values():
        for spelling in (*rule.methods, *rule.attributes):
            assert hasattr(np.ndarray, spelling), (rule.name, spelling)
