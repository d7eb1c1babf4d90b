"""grad_fn, next_functions, accumulation, backward and autograd.grad (API.md section 3)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import srcgrad as sg


def names(fn):
    return type(fn).__name__, [(type(n).__name__ if n is not None else None, k)
                               for n, k in fn.next_functions]


@pytest.mark.parametrize("make,expected", [
    (lambda x, y: x * 3, ("MulBackward0", [("AccumulateGrad", 0), (None, 0)])),
    (lambda x, y: 3 * x, ("MulBackward0", [("AccumulateGrad", 0), (None, 0)])),
    (lambda x, y: x * y, ("MulBackward0", [("AccumulateGrad", 0), ("AccumulateGrad", 0)])),
    (lambda x, y: x + 3, ("AddBackward0", [("AccumulateGrad", 0), (None, 0)])),
    (lambda x, y: 3 - x, ("RsubBackward1", [("AccumulateGrad", 0)])),
    (lambda x, y: x - y, ("SubBackward0", [("AccumulateGrad", 0), ("AccumulateGrad", 0)])),
    (lambda x, y: x / 3, ("DivBackward0", [("AccumulateGrad", 0), (None, 0)])),
    (lambda x, y: 3 / x, ("MulBackward0", [("ReciprocalBackward0", 0), (None, 0)])),
    (lambda x, y: -x, ("NegBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x ** 2, ("PowBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x ** y, ("PowBackward1", [("AccumulateGrad", 0), ("AccumulateGrad", 0)])),
    (lambda x, y: 2 ** x, ("PowBackward2", [("AccumulateGrad", 0)])),
    (lambda x, y: x.sum(), ("SumBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.mean(), ("MeanBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.max(), ("MaxBackward1", [("AccumulateGrad", 0)])),
    (lambda x, y: x.relu(), ("ReluBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.sigmoid(), ("SigmoidBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.softmax(0), ("SoftmaxBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.log_softmax(0), ("LogSoftmaxBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.double(), ("ToCopyBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.clone(), ("CloneBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.clamp(0, 1), ("ClampBackward1", [("AccumulateGrad", 0)])),
    (lambda x, y: x @ y, ("DotBackward0", [("AccumulateGrad", 0), ("AccumulateGrad", 0)])),
    (lambda x, y: x.unsqueeze(0), ("UnsqueezeBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x.expand(2, 3), ("ExpandBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x[0], ("SelectBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x[0:2], ("SliceBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: x[[0, 1]], ("IndexBackward0", [("AccumulateGrad", 0)])),
    (lambda x, y: sg.cat([x, y]), ("CatBackward0", [("AccumulateGrad", 0),
                                                    ("AccumulateGrad", 0)])),
    (lambda x, y: sg.where(x > 0, x, 0.0), ("WhereBackward0", [("AccumulateGrad", 0),
                                                               (None, 0)])),
    (lambda x, y: x.detach() * x, ("MulBackward0", [(None, 0), ("AccumulateGrad", 0)])),
])
def test_node_names_and_next_functions_follow_pytorch(make, expected) -> None:
    x = sg.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert names(make(x, y).grad_fn) == expected


@pytest.mark.parametrize("make,expected", [
    (lambda m, n, v: m @ n, "MmBackward0"), (lambda m, n, v: m @ v, "MvBackward0"),
    (lambda m, n, v: m.t(), "TBackward0"), (lambda m, n, v: m.T, "PermuteBackward0"),
    (lambda m, n, v: m.transpose(0, 1), "TransposeBackward0"),
    (lambda m, n, v: m.permute(1, 0), "PermuteBackward0"),
    (lambda m, n, v: m.view(6), "ViewBackward0"), (lambda m, n, v: m.flatten(), "ViewBackward0"),
    (lambda m, n, v: m.sum(0), "SumBackward1"), (lambda m, n, v: m.mean(1), "MeanBackward1"),
    (lambda m, n, v: m.max(0)[0], "MaxBackward0"), (lambda m, n, v: m.min(0)[0], "MinBackward0"),
    (lambda m, n, v: m.unsqueeze(0).squeeze(0), "SqueezeBackward1"),
    (lambda m, n, v: m.unsqueeze(0).squeeze(), "SqueezeBackward0"),
    (lambda m, n, v: sg.stack([m, m]), "StackBackward0"),
])
def test_matrix_node_names(make, expected) -> None:
    m = sg.randn(2, 3, requires_grad=True)
    n = sg.randn(3, 4, requires_grad=True)
    v = sg.randn(3, requires_grad=True)
    assert type(make(m, n, v).grad_fn).__name__ == expected


def test_node_classes_are_cached_and_repr_like_pytorch() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    a, b = x * 2, x * 3
    assert type(a.grad_fn) is type(b.grad_fn)
    assert repr(a.grad_fn).startswith("<MulBackward0 object at 0x")


def test_accumulate_grad_node_of_a_leaf() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.variable is x and acc.next_functions == ()
    assert (x * 3).grad_fn.next_functions[0][0] is acc


def test_is_leaf() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    assert x.is_leaf and sg.tensor([1.0]).is_leaf
    assert not (x * 2).is_leaf and (x * 2).detach().is_leaf
    with sg.no_grad():
        assert (x * 2).is_leaf


def test_grad_accumulates_and_resets() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first and x.grad.tolist() == [5.0, 7.0]
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_gradient_has_the_leafs_dtype() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    w = sg.tensor([2.0], dtype=sg.float64)
    (x * w).sum().backward()
    assert x.grad.dtype is sg.float32


def test_broadcasting_is_undone() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = sg.tensor([[1.0], [2.0]], requires_grad=True)
    (x * b).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and b.grad.tolist() == [[6.0], [6.0]]


def test_backward_with_explicit_gradient() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(sg.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 20.0]


def test_implicit_gradient_only_for_one_element() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar "
                                           "outputs"):
        (x * 2).backward()
    (x[:1] * 2).backward()  # one element, not 0-d: accepted as in PyTorch
    assert x.grad.tolist() == [2.0, 0.0]


def test_gradient_of_the_wrong_shape() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(sg.ones(3))


def test_backward_of_a_tensor_without_grad() -> None:
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and "
                                           "does not have a grad_fn"):
        sg.tensor([1.0]).sum().backward()


def test_backward_on_an_integer_tensor_names_the_dtype() -> None:
    with pytest.raises(RuntimeError, match="does not require grad.*integer tensor of dtype "
                                           "int64"):
        sg.tensor([1, 2]).sum().backward()


def test_second_backward_raises_without_retain_graph() -> None:
    x = sg.tensor([2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time"):
        y.backward()


def test_retain_graph_allows_a_second_backward() -> None:
    x = sg.tensor([2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [8.0]


def test_nodes_without_saved_tensors_can_run_twice() -> None:
    x = sg.tensor([2.0], requires_grad=True)
    y = (x + 3).sum()
    y.backward()
    y.backward()  # AddBackward0 and SumBackward0 keep only metadata: PyTorch allows this
    assert x.grad.tolist() == [2.0]


def test_backward_inputs_limits_accumulation() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    w = sg.tensor([3.0], requires_grad=True)
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [1.0]


def test_autograd_backward_function() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    sg.autograd.backward([(x * 2).sum(), (x * 3).sum()])
    assert x.grad.tolist() == [5.0]


def test_autograd_grad_leaves_grad_untouched() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = sg.autograd.grad((x * x).sum(), [x])
    assert g.tolist() == [2.0, 4.0] and x.grad is None


def test_autograd_grad_of_an_intermediate() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    (gh,) = sg.autograd.grad((h * h).sum(), h)
    assert gh.tolist() == [6.0, 12.0]


def test_autograd_grad_allow_unused() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    z = sg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        sg.autograd.grad((x * 2).sum(), [x, z])
    gx, gz = sg.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert gx.tolist() == [2.0] and gz is None


def test_autograd_grad_of_input_not_requiring_grad() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not "
                                           "require grad"):
        sg.autograd.grad((x * 2).sum(), [sg.tensor([1.0])])


def test_autograd_grad_with_grad_outputs() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = sg.autograd.grad(x * x, x, grad_outputs=sg.tensor([1.0, 0.5]))
    assert g.tolist() == [2.0, 2.0]


def test_create_graph_third_order() -> None:
    x = sg.tensor([1.5], dtype=sg.float64, requires_grad=True)
    y = x.sin()
    (g1,) = sg.autograd.grad(y, x, create_graph=True)
    (g2,) = sg.autograd.grad(g1, x, create_graph=True)
    (g3,) = sg.autograd.grad(g2, x)
    np.testing.assert_allclose([g1.item(), g2.item(), g3.item()],
                               [np.cos(1.5), -np.sin(1.5), -np.cos(1.5)])


def test_detach_shares_storage_and_version() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert d.is_leaf and not d.requires_grad
    d.add_(1)
    assert x.tolist() == [2.0, 3.0] and x._version == 1


def test_detach_in_place() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x * 2
    assert y.detach_() is y and y.is_leaf and not y.requires_grad
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        (x * 1)[0:1].detach_()


def test_data_is_outside_the_graph() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.is_leaf
    d.mul_(3)  # shares storage, not the version counter
    assert x.tolist() == [3.0] and x._version == 0


def test_no_grad_enable_grad_set_grad_enabled() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    with sg.no_grad():
        assert not sg.is_grad_enabled() and (x * 2).grad_fn is None
        with sg.enable_grad():
            assert (x * 2).grad_fn is not None
    with sg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert sg.is_grad_enabled()
    sg.set_grad_enabled(False)
    try:
        assert not sg.is_grad_enabled()
    finally:
        sg.set_grad_enabled(True)


def test_grad_mode_decorators() -> None:
    x = sg.tensor([1.0], requires_grad=True)

    @sg.no_grad()
    def off():
        return x * 2

    @sg.set_grad_enabled(False)
    def also_off():
        return x * 2

    assert off().grad_fn is None and also_off().grad_fn is None
    assert sg.is_grad_enabled()
    assert (x * 2).grad_fn is not None


def test_grad_mode_is_per_thread() -> None:
    seen = {}
    started, release = threading.Event(), threading.Event()

    def worker():
        seen["initial"] = sg.is_grad_enabled()
        started.set()
        release.wait(5)
        seen["after_main_disabled"] = sg.is_grad_enabled()

    t = threading.Thread(target=worker)
    with sg.no_grad():
        t.start()
        started.wait(5)
        release.set()
        t.join(5)
        assert not sg.is_grad_enabled()
    assert seen == {"initial": True, "after_main_disabled": True}


def test_anything_made_with_grad_disabled_is_a_leaf() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    with sg.no_grad():
        y = x.sin()
    assert y.is_leaf and not y.requires_grad


def test_assigned_grad_must_fit() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = sg.zeros(3)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = sg.zeros(2, dtype=sg.float64)
    x.grad = sg.ones(2)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_a_failing_rule_names_its_node() -> None:
    from srcgrad.rules import defrule, rule_named
    from srcgrad.rules.registry import restore, snapshot
    from srcgrad.tensor import ops

    def broken(x):
        return x * 1.0

    table = snapshot()
    try:
        defrule("broken_for_test", broken, inputs=("x",), kind=None,
                vjp={"x": lambda g: np.reshape(g, (7, 7))})
        y = ops.record(rule_named("broken_for_test"), (sg.ones(3, requires_grad=True),))
        with pytest.raises(RuntimeError, match="the backward of BrokenForTestBackward0 "
                                               "\\(rule 'broken_for_test'\\) failed"):
            y.sum().backward()
    finally:
        restore(table)


def test_backward_inputs_may_name_a_non_leaf() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    (h * h).sum().backward(inputs=[h])
    assert h.grad.tolist() == [6.0, 12.0] and x.grad is None


def test_backward_inputs_cannot_be_empty() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="'inputs' argument to backward\\(\\) cannot be "
                                           "empty"):
        (x * 2).sum().backward(inputs=[])
