"""``loss.backward()`` of a one-element result (``engine._backward_one``): the common
walk entered without the general seeding, with the same results, errors and restored
state as the general path (``gradient=`` given explicitly goes through it)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _graph(x, w):
    h = x
    for _ in range(3):
        h = (h * w + 0.5).sin()
    return (h * h).sum()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_gradients_as_the_general_path(mode, dtype):
    x0 = np.array([0.1, -0.4, 0.9], dtype)
    w0 = np.array([1.5, 0.3, -0.7], dtype)
    grads = []
    for explicit in (False, True):
        x = sg.tensor(x0, requires_grad=True)
        w = sg.tensor(w0, requires_grad=True)
        loss = _graph(x, w)
        if explicit:  # (the general path: a cotangent given)
            loss.backward(sg.tensor(np.ones((), dtype)))
        else:
            assert loss.backward() is None
        grads.append((x.grad.numpy(), w.grad.numpy()))
        assert x.grad.dtype == x.dtype
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_a_second_backward_raises_unless_retained(mode):
    x = sg.tensor([0.3, 0.4], requires_grad=True)
    loss = (x.sin() * x).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(),
                               2 * (np.cos([0.3, 0.4]) * [0.3, 0.4] + np.sin([0.3, 0.4])),
                               rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_grad_mode_and_the_users_error_state_come_back(mode):
    x = sg.tensor([0.0, 1.0], requires_grad=True)
    loss = (x.log() * x).sum()  # log(0): -inf, 0 * -inf: nan, silently
    with np.errstate(all="raise"):
        loss.backward()
        assert np.geterr()["divide"] == "raise"
    assert sg.is_grad_enabled()
    y = sg.tensor([2.0], requires_grad=True)
    loss = (y * y).sum()
    with sg.no_grad():
        loss.backward()
        assert not sg.is_grad_enabled()
    assert y.grad.item() == 4.0


def test_a_failing_vjp_is_a_runtime_error_naming_the_node(mode):
    def boom(v):
        return v * 2

    def bad(g, out, v):
        raise ValueError("no such cotangent")

    wrapped = sg.defvjp(boom, bad)
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    loss = wrapped(x).sum()
    with pytest.raises(RuntimeError, match="the backward of .* failed: no such cotangent"):
        loss.backward()
    assert sg.is_grad_enabled()


def test_hooks_and_retain_grad_on_the_root_and_views_and_leaves(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    loss.retain_grad()
    seen = []
    loss.register_hook(lambda g: seen.append(float(g)) or g * 3)
    loss.backward()
    assert seen == [1.0] and loss.grad.item() == 3.0  # (as PyTorch: retain_grad runs last)
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 12.0])
    # a view as the root (its history may be stale: the general path)
    z = (x * 1.0)[0]
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 12.0])
    # a leaf as the root: its own .grad
    leaf = sg.tensor([5.0], requires_grad=True)
    leaf.backward()
    assert leaf.grad.item() == 1.0
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (x * x).backward()
