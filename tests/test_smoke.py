"""Quick checks that also run on Python 3.10 in CI (``pytest -m smoke``)."""

import numpy as np
import pytest

import srcgrad
from srcgrad.rules import RULES, rule_named

pytestmark = pytest.mark.smoke


def test_package_imports_and_has_rules():
    assert srcgrad.__version__
    assert "sin" in RULES and "multiply" in RULES


def test_a_rule_computes_its_vjp():
    x = np.array([0.5, 1.0])
    ct = rule_named("sin").call_vjp("x", {"g": np.ones(2), "x": x})
    np.testing.assert_allclose(ct, np.cos(x))
