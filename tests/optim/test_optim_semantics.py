"""sg.optim's contract beyond the numbers: in-place updates, skipped parameters, state,
``zero_grad``, closures, parameter groups and PyTorch's error messages."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.optim import SGD, Adam, Optimizer


def quadratic_step(optimizer, *params):
    optimizer.zero_grad()
    sum((p * p).sum() for p in params).backward()
    optimizer.step()


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: Adam(ps, lr=0.1)])
def test_parameters_are_updated_in_place_and_stay_leaves(make):
    w = sg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    storage, view = w.data, w[1:]
    optimizer = make([w])
    before = w.tolist()
    quadratic_step(optimizer, w)
    assert w.tolist() != before
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    assert view.tolist() == w.tolist()[1:]  # a view taken before the step sees it
    assert storage.tolist() == w.tolist()
    assert sg.is_grad_enabled()


def test_step_records_nothing_and_restores_grad_mode_inside_no_grad():
    w = sg.tensor([1.0, 2.0], requires_grad=True)
    optimizer = SGD([w], lr=0.5)
    (w * w).sum().backward()
    with sg.no_grad():
        optimizer.step()
        assert not sg.is_grad_enabled()
    assert w.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("cls", [SGD, Adam])
def test_a_parameter_without_grad_is_skipped(cls):
    used = sg.tensor([1.0, 2.0], requires_grad=True)
    unused = sg.tensor([5.0, 6.0], requires_grad=True)
    optimizer = cls([used, unused], lr=0.1, **({"momentum": 0.9} if cls is SGD else {}))
    for _ in range(2):
        quadratic_step(optimizer, used)
    assert unused.tolist() == [5.0, 6.0] and unused.grad is None
    assert unused not in optimizer.state and used in optimizer.state


def test_sgd_state_is_a_momentum_buffer_only_with_momentum():
    w = sg.tensor([1.0, 2.0], requires_grad=True)
    plain, heavy = SGD([w], lr=0.1), SGD([w], lr=0.1, momentum=0.9)
    quadratic_step(plain, w)
    quadratic_step(heavy, w)
    assert plain.state[w] == {}
    buf = heavy.state[w]["momentum_buffer"]
    assert isinstance(buf, sg.Tensor) and not buf.requires_grad
    np.testing.assert_allclose(buf.tolist(), [1.6, 3.2], rtol=1e-6)  # its first grad: 2w, w = 0.8w0


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_state_is_named_as_pytorch_names_it(amsgrad):
    w = sg.tensor([[1.0, 2.0]], dtype=sg.float64, requires_grad=True)
    optimizer = Adam([w], amsgrad=amsgrad)
    for _ in range(3):
        quadratic_step(optimizer, w)
    state = optimizer.state[w]
    keys = {"step", "exp_avg", "exp_avg_sq"} | ({"max_exp_avg_sq"} if amsgrad else set())
    assert set(state) == keys
    assert state["step"].item() == 3.0 and state["step"].dtype == sg.float32
    assert state["exp_avg"].dtype == sg.float64 and state["exp_avg"].shape == w.shape
    assert w.dtype == sg.float64


def test_zero_grad_sets_none_by_default_and_zeros_in_place_when_asked():
    w = sg.tensor([1.0, 2.0], requires_grad=True)
    optimizer = SGD([w], lr=0.1)
    (w * 3).sum().backward()
    grad = w.grad
    optimizer.zero_grad(set_to_none=False)
    assert w.grad is grad and w.grad.tolist() == [0.0, 0.0]
    optimizer.zero_grad()
    assert w.grad is None


def test_zero_grad_detaches_a_grad_made_with_create_graph():
    w = sg.tensor([1.0, 2.0], requires_grad=True)
    (w ** 3).sum().backward(create_graph=True)
    assert w.grad.grad_fn is not None
    SGD([w], lr=0.1).zero_grad(set_to_none=False)
    assert w.grad.grad_fn is None and not w.grad.requires_grad
    assert w.grad.tolist() == [0.0, 0.0]


def test_step_returns_the_closure_loss_computed_with_grad_enabled():
    w = sg.tensor([3.0], requires_grad=True)
    optimizer = SGD([w], lr=0.25)

    def closure():
        optimizer.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with sg.no_grad():
        loss = optimizer.step(closure)
    assert loss.item() == 9.0 and w.tolist() == [1.5]


def test_groups_keep_their_own_options_and_can_be_changed_or_added():
    a = sg.tensor([1.0], requires_grad=True)
    b = sg.tensor([1.0], requires_grad=True)
    c = sg.tensor([1.0], requires_grad=True)
    optimizer = SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.25, momentum=0.0)
    assert [g["lr"] for g in optimizer.param_groups] == [0.25, 0.5]
    assert optimizer.param_groups[1]["momentum"] == 0.0
    optimizer.add_param_group({"params": [c], "lr": 0.0})
    quadratic_step(optimizer, a, b, c)  # grads are 2
    assert (a.item(), b.item(), c.item()) == (0.5, 0.0, 1.0)
    optimizer.param_groups[0]["lr"] = 0.0  # as an LR scheduler does
    quadratic_step(optimizer, a, b, c)
    assert a.item() == 0.5


def test_named_parameters_are_accepted():
    w = sg.tensor([1.0], requires_grad=True)
    optimizer = Adam([("weight", w)])
    assert optimizer.param_groups[0]["params"][0] is w
    assert optimizer.param_groups[0]["param_names"] == ["weight"]


@pytest.mark.parametrize("build, error, message", [
    (lambda w: SGD(w, lr=0.1), TypeError, "iterable of Tensors or dicts, but got Tensor"),
    (lambda w: SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (lambda w: SGD([w * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda w: SGD([w, 1.0], lr=0.1), TypeError, "can only optimize Tensors"),
    (lambda w: SGD([{"params": {w}}], lr=0.1), TypeError, "ordered collections"),
    (lambda w: SGD([{"params": [w]}, {"params": [w]}]), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda w: SGD([w], lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
    (lambda w: SGD([w], momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
    (lambda w: SGD([w], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda w: SGD([w], nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda w: SGD([w], momentum=0.9, dampening=0.1, nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda w: Adam([w], betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0"),
    (lambda w: Adam([w], betas=(0.9, -0.1)), ValueError, "Invalid beta parameter at index 1"),
    (lambda w: Adam([w], eps=-1e-8), ValueError, "Invalid epsilon value"),
    (lambda w: Adam([w], lr=-0.1), ValueError, "Invalid learning rate"),
    (lambda w: Adam([("a", w), sg.tensor([1.0], requires_grad=True)]), ValueError,
     "Some param names are missing"),
])
def test_bad_arguments_raise_pytorchs_errors(build, error, message):
    w = sg.tensor([1.0], requires_grad=True)
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        build(w)


def test_the_base_class_needs_an_update_rule():
    with pytest.raises(TypeError, match="abstract"):
        Optimizer([sg.tensor([1.0], requires_grad=True)], {})


def test_repr_lists_each_group_options():
    text = repr(SGD([sg.tensor([1.0], requires_grad=True)], lr=0.1, momentum=0.9))
    assert text.startswith("SGD (") and "Parameter Group 0" in text and "momentum: 0.9" in text
