"""sg.autograd.Function, gradcheck, functional.jacobian/hessian and anomaly detection."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg


class Exp(sg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


class ScaleBy(sg.autograd.Function):
    """Non-Tensor argument; reports needs_input_grad."""

    @staticmethod
    def forward(ctx, x, factor, w):
        ctx.factor = factor
        ctx.seen = ctx.needs_input_grad
        ctx.save_for_backward(w)
        return x * factor * w

    @staticmethod
    def backward(ctx, g):
        (w,) = ctx.saved_tensors
        return g * ctx.factor * w, None, None


def test_custom_function_forward_backward_and_name() -> None:
    x = sg.tensor([0.0, 1.0], dtype=sg.float64, requires_grad=True)
    y = Exp.apply(x)
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))


def test_custom_function_non_tensor_argument_and_needs_input_grad() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    w = sg.tensor([3.0, 4.0])
    y = ScaleBy.apply(x, 2.0, w)
    assert y.grad_fn._ctx.seen == (True, False, False)
    assert len(y.grad_fn.next_functions) == 2  # one edge per Tensor argument
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 8.0]


def test_custom_function_wrong_number_of_gradients() -> None:
    class Bad(sg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    x = sg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        Bad.apply(x, x).sum().backward()


def test_custom_function_without_grad_needed_returns_plain_output() -> None:
    y = Exp.apply(sg.tensor([0.0]))
    assert y.grad_fn is None and y.tolist() == [1.0]


def test_custom_function_double_backward() -> None:
    x = sg.tensor([0.5], dtype=sg.float64, requires_grad=True)
    (g,) = sg.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (h,) = sg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.item(), np.exp(0.5))


def test_custom_function_saved_tensor_modified() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = Exp.apply(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_custom_function_setup_context_style() -> None:
    class Square(sg.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = sg.tensor([3.0], requires_grad=True)
    Square.apply(x).backward()
    assert x.grad.tolist() == [6.0]


def test_gradcheck_passes_on_correct_gradients() -> None:
    x = sg.tensor(np.random.default_rng(0).standard_normal((3, 2)), requires_grad=True)
    w = sg.tensor(np.random.default_rng(1).standard_normal(2), requires_grad=True)
    assert sg.autograd.gradcheck(lambda a, b: (a * b).sin().sum(0), (x, w))
    assert sg.autograd.gradcheck(Exp.apply, (x,))


def test_gradcheck_catches_a_wrong_backward() -> None:
    class Wrong(sg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g  # should be 2 x g

    x = sg.tensor([1.0, 2.0], dtype=sg.float64, requires_grad=True)
    with pytest.raises(sg.autograd.GradcheckError, match="Jacobian mismatch for output 0 "
                                                         "with respect to input 0"):
        sg.autograd.gradcheck(Wrong.apply, (x,))
    assert sg.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def test_gradgradcheck() -> None:
    x = sg.tensor([0.3, 0.7], dtype=sg.float64, requires_grad=True)
    assert sg.autograd.gradgradcheck(lambda a: (a ** 3).sin(), (x,))


def test_functional_jacobian() -> None:
    x = sg.tensor([1.0, 2.0], dtype=sg.float64)
    jac = sg.autograd.functional.jacobian(lambda v: v ** 2 * sg.tensor([1.0, 3.0]), x)
    assert jac.shape == (2, 2)
    np.testing.assert_allclose(jac.numpy(), [[2.0, 0.0], [0.0, 12.0]])
    ja, jb = sg.autograd.functional.jacobian(lambda a, b: a * b, (x, x * 2))
    np.testing.assert_allclose(ja.numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(jb.numpy(), np.diag([1.0, 2.0]))


def test_functional_hessian() -> None:
    x = sg.tensor([1.0, 2.0], dtype=sg.float64)
    hess = sg.autograd.functional.hessian(lambda v: (v[0] * v[1] ** 2), x)
    np.testing.assert_allclose(hess.numpy(), [[0.0, 4.0], [4.0, 2.0]])


def test_anomaly_mode_names_the_node_and_where_it_was_made() -> None:
    x = sg.tensor([0.0, 1.0], requires_grad=True)
    with sg.autograd.detect_anomaly():
        y = x.sqrt()  # its backward g / (2 sqrt(x)) is 0 / 0 at x = 0
        z = (y * 0.0).sum()
        with pytest.warns(UserWarning, match=r"(?s)Error detected in SqrtBackward0.*"
                                             r"test_function_and_checks.py.*x.sqrt\(\)"):
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan "
                                                   "values in its 0th output"):
                z.backward()


def test_without_anomaly_mode_nan_flows_silently() -> None:
    x = sg.tensor([0.0], requires_grad=True)
    (x.sqrt() * 0.0).sum().backward()
    assert np.isnan(x.grad.item())


def test_anomaly_switch_as_a_function_and_decorator() -> None:
    sg.autograd.set_detect_anomaly(True)
    try:
        assert sg.autograd.is_anomaly_enabled()
    finally:
        sg.autograd.set_detect_anomaly(False)

    @sg.autograd.detect_anomaly()
    def inside():
        return sg.autograd.is_anomaly_enabled()

    assert inside() and not sg.autograd.is_anomaly_enabled()


def test_defvjp_rules_serve_the_runtime() -> None:
    def snap(x, step=1.0):
        return np.round(x / step) * step

    wrapped = sg.defvjp(snap, lambda g, out, x, step=1.0: g)  # straight-through
    x = sg.tensor([0.4, 1.6], requires_grad=True)
    y = wrapped(x)
    assert y.tolist() == [0.0, 2.0] and type(y.grad_fn).__name__ == "SnapBackward0"
    (y * sg.tensor([1.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0]


def test_a_function_with_only_a_forward_rule_refuses_grad() -> None:
    def twice(x):
        return x * 2

    wrapped = sg.defjvp(twice, lambda t, out, x: t * 2)
    assert wrapped(sg.tensor([1.0])).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="has no reverse-mode rule for its input 'x'.*"
                                           "sg.defvjp"):
        wrapped(sg.tensor([1.0], requires_grad=True))


def test_gradcheck_with_a_non_contiguous_input() -> None:
    x = sg.tensor(np.arange(6.0).reshape(2, 3).T.copy(order="F") / 7, requires_grad=True)
    assert not x._data.flags.c_contiguous
    assert sg.autograd.gradcheck(lambda a: (a * a).sin(), (x,))


def test_functional_jacobian_with_create_graph_stays_connected() -> None:
    x = sg.tensor([1.0, 2.0], dtype=sg.float64, requires_grad=True)
    jac = sg.autograd.functional.jacobian(lambda v: v ** 3, x, create_graph=True)
    np.testing.assert_allclose(jac.detach().numpy(), np.diag([3.0, 12.0]))
    jac.sum().backward()  # d/dx of 3 x^2 summed
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


def test_a_straight_through_rule_serves_the_method_too() -> None:
    from srcgrad.rules.registry import restore, snapshot

    table = snapshot()
    try:
        sg.defvjp(np.round, lambda g, out, x, decimals=0: g)
        x = sg.tensor([0.4, 1.6], requires_grad=True)
        (x.round() * 2 + np.round(x)).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
    finally:
        restore(table)
    x = sg.tensor([0.4, 1.6], requires_grad=True)
    x.round().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # the table's own rule again: zero gradient
