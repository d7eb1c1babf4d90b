"""Where a cotangent is unbroadcast or cast back (``rule_node.targets``) is kept per plan
under the arrays' shapes and dtypes: one plan meeting ever other shapes and dtypes still
gives each node its own, and the gradients stay right."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd import rule_node
from srcgrad.autograd.rule_node import set_specialized


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


PAIRS = [((4,), ()), ((4,), (1,)), ((3, 4), (4,)), ((3, 4), (3, 1)), ((4,), ()), ((2, 1), (1, 5)),
         ((3, 4), (4,)), ((), (4,))]


def _sum_to(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``g`` summed back to ``shape`` (the leading axes, then the stretched ones)."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)


def test_one_plan_many_shapes_each_node_its_own_targets(mode):
    rng = np.random.default_rng(0)
    for _ in range(2):  # (the second time from the cache)
        for sx, sy in PAIRS:
            x = sg.tensor(rng.standard_normal(sx), requires_grad=True)
            y = sg.tensor(rng.standard_normal(sy), requires_grad=True)
            z = x - y
            seed = rng.standard_normal(z.shape)
            z.backward(sg.tensor(seed))
            assert x.grad.shape == sx and y.grad.shape == sy
            np.testing.assert_allclose(x.grad.numpy(), _sum_to(seed, sx))
            np.testing.assert_allclose(y.grad.numpy(), -_sum_to(seed, sy))


def test_mixed_dtypes_are_cast_back_per_node(mode):
    for xd, yd in [(np.float32, np.float64), (np.float64, np.float32), (np.float32, np.float64)]:
        x = sg.tensor(np.ones(3, xd), requires_grad=True)
        y = sg.tensor(np.full(3, 2.0, yd), requires_grad=True)
        (x * y).sum().backward()
        assert x.grad.dtype == x.dtype and y.grad.dtype == y.dtype
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
        np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0, 1.0])


def test_cached_targets_equal_computed_ones():
    x = sg.tensor(np.ones((3, 4)), requires_grad=True)
    y = sg.tensor(np.ones(4, np.float32), requires_grad=True)
    z = x * y
    plan = z.grad_fn._plan
    arrays, out = (x._data, y._data), z._data
    want = rule_node._targets(plan, arrays, out)
    assert want == [None, ((4,), np.dtype(np.float32))]
    assert rule_node.targets(plan, arrays, out) == want
    assert rule_node.targets(plan, arrays, out) is rule_node.targets(plan, arrays, out)
    same = (np.ones((3, 4)), np.ones((3, 4)))
    assert rule_node.targets(plan, same, np.ones((3, 4))) is None
