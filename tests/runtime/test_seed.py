"""The seed walkthrough (shared/seed), example by example, with srcgrad's names.

Each test is one code block of the walkthrough, run as written with ``torch`` replaced
by ``sg``, checking the values and names the walkthrough states. Where the walkthrough's
own code is wrong PyTorch's real behaviour is what we match (the debugging-graph block).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import srcgrad as sg

pytestmark = pytest.mark.smoke  # also run on the oldest supported Python in CI


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    sg.set_grad_enabled(True)  # the walkthrough toggles the mode globally; undo it


def test_how_the_graph_is_built() -> None:
    a = sg.tensor([2.0], requires_grad=True)
    b = a * 3
    c = b.sin()
    assert re.fullmatch(r"<SinBackward0 object at 0x[0-9a-f]+>", repr(c.grad_fn))
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(b.grad_fn))
    c.backward()
    assert a.grad.item() == pytest.approx(math.cos(6) * 3, rel=1e-6)
    assert round(a.grad.item(), 2) == 2.88


def test_meta_model_fields() -> None:
    a = sg.tensor([2.0], requires_grad=True)
    b = a * 3
    assert np.array_equal(a.data.numpy(), [2.0]) and a.requires_grad and a.grad_fn is None
    assert a.grad is None and a.is_leaf
    assert not b.is_leaf and b.grad_fn is not None


def test_chain_rule_example() -> None:
    def f(x):
        return sg.sin(x * 3).sum()

    x = sg.tensor([0.5, 1.0], requires_grad=True)
    f(x).backward()
    expected = [math.cos(1.5) * 3, math.cos(3.0) * 3]
    assert [round(g, 4) for g in x.grad.tolist()] == [round(e, 4) for e in expected]


def test_accumulation_and_zeroing() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    (2 * x).sum().backward()
    (3 * x).sum().backward()
    assert repr(x.grad) == "tensor([5.])"
    x.grad.zero_()
    assert repr(x.grad) == "tensor([0.])"
    x.grad = None
    assert x.grad is None


def test_inplace_block_as_written_runs_backward() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x * 2
    y.sum().backward()  # x.add_(1) is commented out in the walkthrough: nothing breaks
    assert x.grad.tolist() == [2.0]


def test_inplace_block_uncommented_raises_the_leaf_error() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                           "used in an in-place operation"):
        x.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [2.0]


def test_detach_shares_data_without_grad_path() -> None:
    x = sg.randn(4, requires_grad=True)
    y = x * 2
    z = y.detach()
    assert z.requires_grad is False
    assert np.shares_memory(z.numpy(), y._data)


def test_context_managers() -> None:
    x = sg.randn(3, requires_grad=True)
    with sg.no_grad():
        out = x * 3
    assert not out.requires_grad and out.grad_fn is None
    with sg.no_grad():
        with sg.enable_grad():
            g = x * 3
    assert g.requires_grad and type(g.grad_fn).__name__ == "MulBackward0"
    sg.set_grad_enabled(False)
    assert not sg.is_grad_enabled()
    assert not (x * 3).requires_grad
    sg.set_grad_enabled(True)
    assert sg.is_grad_enabled()


def test_create_graph_second_order() -> None:
    x = sg.tensor([2.0], requires_grad=True)
    y = x ** 3
    g1 = sg.autograd.grad(y, x, create_graph=True)[0]
    g2 = sg.autograd.grad(g1, x)[0]
    assert (g1.item(), g2.item()) == (12.0, 12.0)


def test_backward_create_graph_for_higher_order() -> None:
    x = sg.tensor([2.0], requires_grad=True)
    (x ** 3).backward(create_graph=True)
    g1 = x.grad
    assert g1.requires_grad and g1.item() == 12.0
    x.grad = None
    g1.backward()
    assert x.grad.item() == 12.0


def test_grad_vs_backward() -> None:
    x = sg.randn(2, requires_grad=True)
    y = x.square().sum()
    gx = sg.autograd.grad(y, x, retain_graph=True)
    assert isinstance(gx, tuple) and x.grad is None
    y.backward()
    np.testing.assert_allclose(gx[0].numpy(), x.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)


def test_grad_vs_backward_as_written_raises_on_the_second_pass() -> None:
    # The walkthrough calls autograd.grad then backward on the same graph without
    # retain_graph; square saves its input, so PyTorch raises there, and so do we.
    x = sg.randn(2, requires_grad=True)
    y = x.square().sum()
    sg.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_debugging_the_graph_as_written_raises_index_error() -> None:
    x = sg.randn(2, 2, requires_grad=True)
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        (x + 1).relu().flatten()[:, 0]


def test_debugging_the_graph_walk() -> None:
    x = sg.randn(2, 2, requires_grad=True)
    y = (x + 1).relu()[:, 0]
    names = []
    fn = y.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert names == ["SelectBackward0", "ReluBackward0", "AddBackward0", "AccumulateGrad"]
    y = (x + 1).relu().flatten()[0]
    assert type(y.grad_fn).__name__ == "SelectBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "ViewBackward0"


def test_make_dot_renders_the_graph() -> None:
    x = sg.randn(2, requires_grad=True)
    loss = (x * 3).sin().sum()
    dot = sg.viz.make_dot(loss, params={"x": x})
    for name in ("SumBackward0", "SinBackward0", "MulBackward0", "x\\n (2)"):
        assert name in dot.source


def test_set_detect_anomaly_catches_nan() -> None:
    x = sg.tensor([0.0], requires_grad=True)
    with sg.autograd.set_detect_anomaly(True):
        y = x.sqrt() * 0.0  # d sqrt / dx at 0 is inf; inf * 0 = nan
        with pytest.warns(UserWarning, match="Error detected in"):
            with pytest.raises(RuntimeError, match="returned nan values"):
                y.backward()
    assert not sg.autograd.is_anomaly_enabled()
