"""``forward_tangent``: how each kind derives forward mode (the rule x sample test checks
the numbers; these check the cases it does not reach)."""

from __future__ import annotations

import numpy as np
import pytest

from srcgrad.rules import RULES, forward_tangent, rule_named

X = np.array([[1.0, 2.0], [3.0, 4.0]])
Y = np.array([0.5, -1.0])


def _env(name, **env):
    form = rule_named(name).call_form
    env = {**{k: v for k, v in form.defaults.items() if k not in env}, **env}
    return {**env, "out": rule_named(name).apply(env)}


def test_no_tangent_in_means_no_tangent_out():
    assert forward_tangent(rule_named("sin"), _env("sin", x=X), {}) is None
    assert forward_tangent(rule_named("multiply"), _env("multiply", x=X, y=Y),
                           {"x": None, "y": None}) is None


def test_nondiff_rules_give_no_tangent():
    assert forward_tangent(rule_named("sign"), _env("sign", x=X), {"x": np.ones(4)}) is None


def test_elementwise_contribution_is_broadcast_to_the_output():
    # d(x + y) with only y's tangent: y's shape (2,) must come out as the output's (2, 2)
    t = forward_tangent(rule_named("add"), _env("add", x=X, y=Y), {"y": np.ones(2)})
    np.testing.assert_array_equal(t, np.ones((2, 2)))


def test_linear_rule_uses_zeros_for_inputs_without_tangent():
    env = _env("concatenate", xs=[X, X[:1]], axis=0)
    t = forward_tangent(rule_named("concatenate"), env, {"xs": [None, np.ones((1, 2))]})
    np.testing.assert_array_equal(t, [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])


def test_linear_rule_keeps_non_differentiable_inputs():
    env = _env("getitem", x=X, index=(1, 0))
    t = forward_tangent(rule_named("getitem"), env, {"x": np.arange(4.0).reshape(2, 2)})
    assert t == 2.0


def test_bilinear_rule_sums_the_swaps():
    tx, ty = np.ones((2, 2)), np.array([1.0, 2.0])
    t = forward_tangent(rule_named("matmul"), _env("matmul", x=X, y=Y), {"x": tx, "y": ty})
    np.testing.assert_allclose(t, tx @ Y + X @ ty)
    t1 = forward_tangent(rule_named("matmul"), _env("matmul", x=X, y=Y), {"y": ty})
    np.testing.assert_allclose(t1, X @ ty)


def test_multilinear_einsum_sums_one_swap_per_operand():
    a, b, c = np.ones((2, 3)), np.full((3, 2), 2.0), np.eye(2)
    env = _env("einsum", subscripts="ij,jk,kl->il", operands=[a, b, c], optimize=False)
    ta, tc = np.full((2, 3), 0.5), np.full((2, 2), 3.0)
    t = forward_tangent(rule_named("einsum"), env, {"operands": [ta, None, tc]})
    np.testing.assert_allclose(t, ta @ b @ c + a @ b @ tc)


def test_a_rule_without_forward_mode_says_to_use_defjvp():
    from srcgrad.rules import Rule
    rule = Rule("reverse_only", np.sin, inputs=("x",), vjp={"x": lambda g, x: g * np.cos(x)})
    with pytest.raises(LookupError, match="sg.defjvp"):
        forward_tangent(rule, {"x": X, "out": np.sin(X)}, {"x": X})


def test_every_differentiable_builtin_rule_has_forward_mode():
    missing = sorted(name for name, r in RULES.items() if not r.user
                     and any(not r.has_forward(n) for n in r.vjp))
    assert not missing, f"rules with a VJP but no forward mode: {missing}"
