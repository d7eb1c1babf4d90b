"""Every rule of the table, run through the runtime on the rule samples.

First order: the gradient the runtime's backward computes equals the table's VJP
(the engine only calls the rule and undoes broadcasting). Second order: differentiating
the runtime's first-order gradient again (``create_graph=True``, so the rule bodies run on
Tensors) matches central differences of the first-order gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.rules import RULES
from srcgrad.tensor import ops
from tests.fd import directional_derivative
from tests.rules.checker import (
    _get,
    _slots,
    _with,
    cotangent,
    direction,
    full_env,
    wrt_inputs,
)
from tests.rules.samples import SAMPLES

# a sample with no float input differentiates nothing here (its integer/boolean inputs are
# tests/rules' business): it is not a case, rather than a case that always skips
CASES = [(name, k) for name in sorted(SAMPLES) if name in RULES and RULES[name].vjp
         and not RULES[name].user for k in range(len(SAMPLES[name]))
         if wrt_inputs(RULES[name], SAMPLES[name][k])]
SECOND_ORDER = [(name, k) for name, k in CASES if not SAMPLES[name][k].first_order_only]
REFUSED_SECOND_ORDER = [(name, k) for name, k in CASES if SAMPLES[name][k].first_order_only]


def _to_runtime(rule: Any, env: dict[str, Any], wrt: list[str]) -> tuple[tuple, dict, list]:
    """The sample's inputs as Tensors (those in ``wrt`` require grad), its params as is."""
    leaves = []

    def wrap(name: str, value: Any) -> Any:
        if isinstance(value, np.generic):
            value = np.asarray(value)
        if not isinstance(value, np.ndarray):
            return value
        t = sg.tensor(value)
        if name in wrt:
            t.requires_grad_(True)
            leaves.append(t)
        return t

    inputs = []
    for name in rule.inputs:
        value = env[name]
        if name == rule.variadic:
            inputs.append([wrap(name, v) for v in value])
        else:
            inputs.append(wrap(name, value))
    params = {p: env[p] for p in rule.params}
    return tuple(inputs), params, leaves


def _sample(name: str, k: int) -> tuple[Any, Any, list[str]]:
    rule = RULES[name]
    sample = SAMPLES[name][k]
    wrt = wrt_inputs(rule, sample)
    assert wrt, f"{name}[{k}] has no float input: CASES should have left it out"
    return rule, sample, wrt


@pytest.fixture(params=["compiled", "generic"])
def builders(request):
    """Run with the per-plan written-out builders and backward functions
    (``autograd.specialize``), and with the generic code they specialise
    (``rule_node.build_node``, ``RuleNode.apply``)."""
    previous = set_specialized(request.param == "compiled")
    yield request.param
    set_specialized(previous)


@pytest.mark.parametrize("name,k", CASES)
def test_runtime_gradient_equals_the_tables_vjp(name: str, k: int, builders: str) -> None:
    rule, sample, wrt = _sample(name, k)
    env = sample.env
    inputs, params, leaves = _to_runtime(rule, env, wrt)
    out = ops.record(rule, inputs, params)
    want_out = np.asarray(rule.apply(env))
    np.testing.assert_allclose(out._data, want_out, rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(k).standard_normal(want_out.shape)
    got = sg.autograd.grad(out, leaves, sg.tensor(g), allow_unused=True)
    full = full_env(rule, env, want_out, g)
    expected = [cotangent(rule, full, n, i) for n in wrt for i in _slots(rule, env, n)]
    assert len(got) == len(expected)
    for have, want in zip(got, expected):
        want = np.broadcast_to(want, have.shape) if have is not None else want
        have = np.zeros_like(want) if have is None else have._data
        np.testing.assert_allclose(have, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,k", SECOND_ORDER)
def test_second_order_through_create_graph_matches_central_differences(name: str,
                                                                        k: int) -> None:
    rule, sample, wrt = _sample(name, k)
    env = sample.env
    rng = np.random.default_rng(7)
    out = np.asarray(rule.apply(env))
    g = rng.standard_normal(out.shape)
    for n in wrt:
        for i in _slots(rule, env, n):
            x = _get(env, n, i)
            w = rng.standard_normal(np.shape(x))
            u = direction(rng, sample, n, np.shape(x))  # symmetric for cholesky, eigh

            def first_order(v: np.ndarray, n: str = n, i: Any = i) -> float:
                point = _with(env, n, i, v)
                inputs, params, leaves = _to_runtime(rule, point, [n])
                target = leaves[0 if i is None else i]
                y = ops.record(rule, inputs, params)
                (gx,) = sg.autograd.grad(y, [target], sg.tensor(g), allow_unused=True)
                return 0.0 if gx is None else float(np.sum(gx._data * w))

            point = _with(env, n, i, x)
            inputs, params, leaves = _to_runtime(rule, point, [n])
            target = leaves[0 if i is None else i]
            y = ops.record(rule, inputs, params)
            (gx,) = sg.autograd.grad(y, [target], sg.tensor(g), create_graph=True,
                                     allow_unused=True)
            if gx is None or not gx.requires_grad:
                analytic = 0.0  # the first-order gradient does not depend on x (linear)
            else:
                s = (gx * sg.tensor(w)).sum()
                (h,) = sg.autograd.grad(s, [target], allow_unused=True)
                analytic = 0.0 if h is None else float(np.sum(h._data * u))
            fd = float(directional_derivative(first_order, (x,), {0: u}))
            assert abs(analytic - fd) <= 1e-5 * max(abs(analytic), abs(fd)) + 1e-6, (
                f"{name} second order wrt {n}[{i}]: {analytic} != {fd}")


@pytest.mark.parametrize("name,k", REFUSED_SECOND_ORDER)
def test_refused_second_order_through_create_graph_raises_naming_the_rule(name: str,
                                                                          k: int) -> None:
    rule, sample, wrt = _sample(name, k)
    inputs, params, leaves = _to_runtime(rule, sample.env, wrt[:1])
    y = ops.record(rule, inputs, params)
    with pytest.raises(RuntimeError, match="no reverse-mode rule"):
        (gx,) = sg.autograd.grad(y.sum(), [leaves[0]], create_graph=True)
        (gx * gx).sum().backward()
