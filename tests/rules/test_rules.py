"""Every rule x every sample: VJP against finite differences, forward mode against reverse
mode, float32 in -> float32 out, and (on each rule's first samples) second order."""

from __future__ import annotations

import pytest

from srcgrad.rules import NONDIFF, RULES

from . import checker
from .samples import SAMPLES

CASES = [(name, k) for name in sorted(RULES) for k in range(len(SAMPLES.get(name, ())))]
SECOND_ORDER = [(name, k) for name, k in CASES if RULES[name].kind != NONDIFF
                and (k < 2 or k == len(SAMPLES[name]) - 1)
                and not SAMPLES[name][k].first_order_only]


def _ids(case: tuple[str, int]) -> str:
    name, k = case
    label = SAMPLES[name][k].label
    return f"{name}-{k}" + (f"-{label}" if label else "")


@pytest.fixture(autouse=True)
def _quiet():
    with checker.warnings_as_errors():
        yield


def _builtin(name: str) -> bool:
    return not RULES[name].user  # sg.defvjp rules are other tests' (and users') business


def test_every_rule_has_samples():
    missing = sorted(name for name in RULES if _builtin(name) and not SAMPLES.get(name))
    assert not missing, f"rules without samples in tests/rules/samples.py: {missing}"


def test_every_differentiable_rule_is_checked_somewhere():
    unchecked = [name for name in RULES if _builtin(name) and RULES[name].vjp and not any(
        checker.wrt_inputs(RULES[name], s) for s in SAMPLES.get(name, ()))]
    assert not unchecked, f"rules whose samples differentiate nothing: {unchecked}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_vjp_matches_finite_differences(case):
    name, k = case
    checker.check_vjp(RULES[name], SAMPLES[name][k])


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_forward_matches_reverse(case):
    name, k = case
    rule = RULES[name]
    sample = SAMPLES[name][k]
    if not all(rule.has_forward(n) for n in checker.wrt_inputs(rule, sample)):
        pytest.skip(f"{name} has no forward mode for these inputs")
    checker.check_forward(rule, sample)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_float32_stays_float32(case):
    name, k = case
    checker.check_float32(RULES[name], SAMPLES[name][k])


@pytest.mark.parametrize("case", SECOND_ORDER, ids=_ids)
def test_second_order_matches_finite_differences(case):
    name, k = case
    checker.check_second_order(RULES[name], SAMPLES[name][k])
