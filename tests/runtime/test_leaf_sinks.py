"""A leaf's ``AccumulateGrad`` in the engine's common walk (``engine._walk_fast``) is
written out: ``leaf.grad += g`` with the leaf's tensor hooks, never through ``apply``;
the other walks (hooks on the node, ``create_graph``, ``autograd.grad``) still apply it."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.graph import AccumulateGrad


@pytest.fixture
def no_apply(monkeypatch):
    def refuse(self, grads, create_graph):
        raise AssertionError("AccumulateGrad.apply ran")

    monkeypatch.setattr(AccumulateGrad, "apply", refuse)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_leaf_gradients_accumulate_without_apply(no_apply, dtype):
    x = sg.tensor(np.array([0.5, -1.0, 2.0], dtype), requires_grad=True)
    w = sg.tensor(np.array([1.5, 0.25, -3.0], dtype), requires_grad=True)
    for k in range(2):  # a fresh .grad, then accumulated in place
        (x * w + x).sin().sum().backward()
        xs, ws = x.detach().numpy(), w.detach().numpy()
        slope = np.cos(xs * ws + xs)
        np.testing.assert_allclose(x.grad.numpy(), (k + 1) * slope * (ws + 1), rtol=1e-6)
        np.testing.assert_allclose(w.grad.numpy(), (k + 1) * slope * xs, rtol=1e-6)
        assert x.grad.dtype == dtype and w.grad.dtype == dtype


def test_a_leafs_tensor_hooks_run_in_order_and_may_replace_the_gradient(no_apply):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    x.register_hook(lambda g: g * 10.0)
    (x * x).sum().backward()
    np.testing.assert_array_equal(seen[0], [2.0, 4.0])
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 40.0])


def test_the_other_walks_still_apply_the_sink():
    calls = []
    original = AccumulateGrad.apply

    def counted(self, grads, create_graph):
        calls.append(create_graph)
        return original(self, grads, create_graph)

    AccumulateGrad.apply = counted
    try:
        x = sg.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        assert calls == [True]
        np.testing.assert_array_equal(x.grad.detach().numpy(), [2.0, 4.0])
        x.grad = None
        sink = (x * 1.0).grad_fn.next_functions[0][0]
        sink.register_prehook(lambda gs: gs)  # (a node hook: the full path)
        (x * x).sum().backward()
        assert calls == [True, False]
    finally:
        AccumulateGrad.apply = original
