"""``a @ b`` of two float tensors of one dtype takes ``tensor.fixed_ops.fixed_pair`` (the
general record path with its call form decided once per pair of ndims): same values,
dtypes, node names, edges, saved values, gradients and errors as ``ops.record`` itself,
with the code generator on and off; anything else (numbers, ndarrays, integer or mixed
dtypes) still goes through ``record``."""

from __future__ import annotations

import dataclasses

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


SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)),
          ((2, 3, 4), (4, 2)), ((2, 3, 4), (2, 4, 5))]


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_matmul_of_float_tensors_records_what_the_general_path_records(mode, dtype, shapes,
                                                                       needs):
    rng = np.random.default_rng(0)
    a0, b0 = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    leaves = [[sg.tensor(v, dtype=dtype, requires_grad=r) for v, r in zip((a0, b0), needs)]
              for _ in range(2)]
    fast_in = [t * 1.0 for t in leaves[0]]  # (non-leaf inputs: edges to their nodes)
    slow_in = [t * 1.0 for t in leaves[1]]
    fast = fast_in[0] @ fast_in[1]
    slow = ops.record(rule_named("matmul"), tuple(slow_in))
    assert_recorded_alike(fast, slow, dtype)
    assert [n is None for n, _ in fast.grad_fn.next_functions] == \
        [n is None for n, _ in slow.grad_fn.next_functions] == [not r for r in needs]
    backward_with_one_seed(fast, slow, dtype)
    for f, s in zip(*leaves):
        if f.requires_grad:
            np.testing.assert_array_equal(f.grad.numpy(), s.grad.numpy())


@pytest.mark.parametrize("shapes", SHAPES)
def test_matmul_gradient_and_second_order_match_finite_differences(mode, shapes):
    rng = np.random.default_rng(2)
    a0, b0 = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])

    def f(a, b):  # sin keeps the second derivative nonzero
        return ((a.sin() @ b) * (a @ b.cos())).sum()

    def value(u, v):
        return f(sg.tensor(u, dtype=sg.float64), sg.tensor(v, dtype=sg.float64)).item()

    a, b = (sg.tensor(v, dtype=sg.float64, requires_grad=True) for v in (a0, b0))
    ga, gb = sg.autograd.grad(f(a, b), (a, b), create_graph=True)
    for k, g in enumerate((ga, gb)):
        np.testing.assert_allclose(g.detach().numpy(), numeric_gradient(value, (a0, b0), None, k),
                                   rtol=1e-6, atol=1e-8)
    ua, ub = rng.standard_normal(a0.shape), rng.standard_normal(b0.shape)
    ((ga * sg.tensor(ua)).sum() + (gb * sg.tensor(ub)).sum()).backward()

    def directional(u, v):
        xa, xb = (sg.tensor(w, dtype=sg.float64, requires_grad=True) for w in (u, v))
        da, db = sg.autograd.grad(f(xa, xb), (xa, xb))
        return float((da.numpy() * ua).sum() + (db.numpy() * ub).sum())

    for k, t in enumerate((a, b)):
        np.testing.assert_allclose(t.grad.numpy(), numeric_gradient(directional, (a0, b0), None, k),
                                   rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("other", [
    lambda: sg.tensor([1.0, 2.0], dtype=sg.float64),  # mixed float dtypes
    lambda: np.array([1.0, 2.0], dtype=np.float32),  # an ndarray operand
    lambda: sg.tensor([1, 2]),  # an integer tensor
])
def test_matmul_operands_outside_the_fixed_form_behave_as_the_general_path(other):
    def run(through_record):
        a = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = other()
        try:
            if through_record:
                bt = b if isinstance(b, sg.Tensor) else sg.Tensor._wrap(b)
                out = ops.record(rule_named("matmul"), (a * 1.0, bt))
            else:
                out = (a * 1.0) @ b
        except Exception as e:  # noqa: BLE001 (the same error either way)
            return type(e), None, None, None
        out.sum().backward()
        return None, out.dtype, type(out.grad_fn), a.grad.numpy()

    fast, slow = run(False), run(True)
    assert fast[:3] == slow[:3]
    if fast[3] is not None:
        np.testing.assert_array_equal(fast[3], slow[3])


def test_matmul_under_no_grad_records_nothing_and_shape_errors_stay_pytorchs():
    a = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with sg.no_grad():
        assert (a @ a).grad_fn is None
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        a @ sg.tensor(np.ones((3, 2)))


def test_a_matmul_rule_registered_again_is_the_one_recorded(monkeypatch):
    from srcgrad.rules.registry import RULES

    a = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = sg.tensor([1.0, 1.0])
    (a @ v).sum().backward()  # (the op for the table's own record is made and cached)
    expected = a.grad.numpy().copy()
    original = RULES["matmul"]
    doubled = dataclasses.replace(original, vjp={
        **original.vjp, "x": lambda g, y, x_shape: 2.0 * original.vjp["x"](g, y, x_shape)})
    monkeypatch.setitem(RULES, "matmul", doubled)
    a.grad = None
    (a @ v).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), 2.0 * expected)
