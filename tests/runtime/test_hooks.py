"""Tensor hooks, node hooks and retain_grad (API.md section 3)."""

from __future__ import annotations

import pytest

import srcgrad as sg


def test_leaf_hook_sees_and_can_replace_the_gradient() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]] and x.grad.tolist() == [30.0, 30.0]


def test_non_leaf_hook_changes_what_flows_on() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.register_hook(lambda g: g + 1)
    h.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]  # (1 + 1) * 2


def test_hook_removal() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0]
    handle.remove()  # removing twice is harmless


def test_hook_on_a_tensor_without_grad() -> None:
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        sg.ones(2).register_hook(lambda g: g)


def test_hooks_also_apply_to_autograd_grad() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    (g,) = sg.autograd.grad((x * 3).sum(), x)
    assert g.tolist() == [6.0] and x.grad is None


def test_retain_grad_keeps_a_non_leaf_gradient() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    assert h.retains_grad
    (h * h).sum().backward()
    assert h.grad.tolist() == [4.0, 8.0]


def test_non_leaf_grad_is_none_with_a_warning() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    h = x * 2
    h.sum().backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert h.grad is None


def test_retain_grad_requires_grad() -> None:
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        sg.ones(2).retain_grad()


def test_node_pre_and_post_hooks() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda gout: calls.append(("pre", gout[0].tolist())))
    y.grad_fn.register_hook(lambda gin, gout: calls.append(("post", gin[0].tolist())))
    y.sum().backward()
    assert calls == [("pre", [1.0]), ("post", [3.0])]


def test_post_hook_can_replace_input_gradients() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 0, gin[1]))
    y.sum().backward()
    assert x.grad.tolist() == [0.0]
