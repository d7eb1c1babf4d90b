"""Reductions over fixed axes (``x.sum()``, ``x.mean(1)``...) take ``tensor.fixed_ops``,
the general record path with its call form decided once: same values, dtypes, nodes,
saved values, gradients and errors as ``ops.record`` itself, with the code generator on
and off."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.rules import rule_named
from srcgrad.tensor import ops
from tests.fd import numeric_gradient
from tests.runtime.recorded_alike import assert_recorded_alike, backward_with_one_seed


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


CASES = [  # (method, kwargs, the rule and params record would get)
    ("sum", {}, "sum", {"axis": None, "keepdims": False}),
    ("sum", {"dim": 1}, "sum", {"axis": 1, "keepdims": False}),
    ("sum", {"dim": (0, 1), "keepdim": True}, "sum", {"axis": (0, 1), "keepdims": True}),
    ("mean", {}, "mean", {"axis": None, "keepdims": False}),
    ("mean", {"dim": -1, "keepdim": True}, "mean", {"axis": -1, "keepdims": True}),
    ("prod", {"dim": 0}, "prod", {"axis": 0, "keepdims": False}),
    ("var", {"dim": 1}, "var", {"axis": 1, "keepdims": False, "ddof": 1}),
    ("std", {}, "std", {"axis": None, "keepdims": False, "ddof": 1}),
    ("amax", {"dim": 1}, "amax", {"axis": 1, "keepdims": False}),
]


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
@pytest.mark.parametrize("method, kwargs, rule, params", CASES)
def test_fixed_axis_reduction_records_what_the_general_path_records(mode, dtype, method,
                                                                    kwargs, rule, params):
    x0 = np.random.default_rng(0).standard_normal((3, 4)) + 2.0
    fast_x = sg.tensor(x0, dtype=dtype, requires_grad=True)
    slow_x = sg.tensor(x0, dtype=dtype, requires_grad=True)
    fast = getattr(fast_x * 1.0, method)(**kwargs)
    slow = ops.record(rule_named(rule), (slow_x * 1.0,), dict(params))
    assert_recorded_alike(fast, slow, dtype)
    assert [type(n).__name__ for n, _ in fast.grad_fn.next_functions] == \
        [type(n).__name__ for n, _ in slow.grad_fn.next_functions]
    backward_with_one_seed(fast, slow, dtype)
    np.testing.assert_array_equal(fast_x.grad.numpy(), slow_x.grad.numpy())


@pytest.mark.parametrize("method", ["sum", "mean"])
def test_full_reduction_gradient_and_second_order_match_finite_differences(mode, method):
    x0 = np.random.default_rng(2).standard_normal((2, 3))

    def f(x):  # sin keeps the second derivative nonzero
        return getattr(x.sin() * x, method)()

    x = sg.tensor(x0, dtype=sg.float64, requires_grad=True)
    g, = sg.autograd.grad(f(x), x, create_graph=True)
    value = lambda v: f(sg.tensor(v, dtype=sg.float64)).item()  # noqa: E731
    np.testing.assert_allclose(g.detach().numpy(), numeric_gradient(value, (x0,), None, 0),
                               rtol=1e-6, atol=1e-8)
    u = np.random.default_rng(3).standard_normal(x0.shape)
    (g * sg.tensor(u)).sum().backward()

    def gu(v):
        xv = sg.tensor(v, dtype=sg.float64, requires_grad=True)
        gv, = sg.autograd.grad(f(xv), xv)
        return float((gv.numpy() * u).sum())

    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(gu, (x0,), None, 0),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype, expected", [(sg.int32, sg.int64), (sg.bool, sg.int64)])
def test_integer_and_bool_sums_keep_pytorchs_promotion(dtype, expected):
    x = sg.tensor([[1, 0, 1], [1, 1, 0]], dtype=dtype)
    assert x.sum().dtype == expected
    assert x.sum(1).dtype == expected
    assert x.sum().item() == 4


def test_a_reduction_over_a_missing_axis_raises_as_the_general_path_does():
    x = sg.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(Exception) as general:
        ops.record(rule_named("sum"), (x,), {"axis": 3, "keepdims": False})
    with pytest.raises(type(general.value), match="sum()"):
        x.sum(3)


def test_a_reduction_under_no_grad_records_nothing_and_a_view_records_its_history():
    x = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with sg.no_grad():
        assert x.sum().grad_fn is None
    z = sg.zeros(2, 2)
    row = z[0]
    z[1] += x[0]  # the base gets a history after the view was made
    total = row.sum() + z.sum()
    total.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0], [0.0, 0.0]])


def test_a_rule_registered_again_is_the_one_a_reduction_records(monkeypatch):
    """The fixed-axis op is cached per rule record: a new record for ``sum`` (the table's
    records can be replaced) is used from the next call on."""
    import dataclasses

    from srcgrad.rules.registry import RULES

    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.sum().backward()  # (the op for the table's own record is made and cached)
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    original = RULES["sum"]
    doubled = dataclasses.replace(original, vjp={
        "x": lambda g, x_shape, axis, keepdims: 2.0 * original.vjp["x"](g, x_shape, axis,
                                                                       keepdims)})
    monkeypatch.setitem(RULES, "sum", doubled)
    x.grad = None
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
