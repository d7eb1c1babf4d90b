"""The one record path and the one way a node applies its rule, with the code generator
(``autograd.specialize``) on and off: same gradients, same saved values, same errors."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import RuleNode, set_specialized
from tests.fd import numeric_gradient


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _program(x, w, b):
    """The W5 benchmark's graph, shortened: mul, broadcasting add, sin, a float scale."""
    h = x
    for _ in range(3):
        h = ((h * w + b).sin()) * 0.5
    return (h * h).sum()


def _values():
    rng = np.random.default_rng(3)
    return rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal(())


def test_recorded_graph_gradient_matches_finite_differences(mode):
    x0, w0, b0 = _values()
    leaves = [sg.tensor(v, dtype=sg.float64, requires_grad=True) for v in (x0, w0, b0)]
    _program(*leaves).backward()
    fn = lambda x, w, b: _program(*(sg.tensor(v, dtype=sg.float64) for v in (x, w, b))).item()  # noqa: E731
    for k, leaf in enumerate(leaves):
        np.testing.assert_allclose(leaf.grad.numpy(), numeric_gradient(fn, (x0, w0, b0), None, k),
                                   rtol=1e-6, atol=1e-8)


def test_create_graph_runs_the_same_rules_on_tensors_for_second_order(mode):
    """Hessian-vector product through create_graph against differences of the gradient."""
    x0, w0, b0 = _values()
    v = np.random.default_rng(4).standard_normal(x0.shape)

    def gv(x):  # <grad_x f(x), v>, itself taken by the runtime
        xt = sg.tensor(x, dtype=sg.float64, requires_grad=True)
        w, b = (sg.tensor(a, dtype=sg.float64) for a in (w0, b0))
        g, = sg.autograd.grad(_program(xt, w, b), xt, create_graph=True)
        return g, xt

    g, xt = gv(x0)
    (g * sg.tensor(v)).sum().backward()
    expected = numeric_gradient(lambda x: float((gv(x)[0].detach().numpy() * v).sum()),
                                (x0,), None, 0)
    np.testing.assert_allclose(xt.grad.numpy(), expected, rtol=1e-5, atol=1e-7)


def test_an_input_changed_in_place_is_reported_at_backward(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    z = y * y
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_a_saved_result_changed_in_place_is_reported_at_backward(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # exp's VJP reads its result
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_second_backward_without_retain_graph_raises(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_a_node_saving_only_shapes_can_run_again(mode):
    """As in PyTorch, only saved tensors are freed: ``sum`` keeps its input's shape."""
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1.0).sum()
    y.backward()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_both_ways_save_the_same_values():
    x = sg.tensor([[1.0, 2.0]], requires_grad=True)
    w = sg.tensor([3.0, 4.0], requires_grad=True)
    saved = {}
    for flag in (True, False):
        previous = set_specialized(flag)
        try:
            out = (x * w).exp()
        finally:
            set_specialized(previous)
        nodes = [out.grad_fn, out.grad_fn.next_functions[0][0]]
        assert all(isinstance(n, RuleNode) for n in nodes)
        saved[flag] = [{k: (v.numpy(force=True) if isinstance(v, sg.Tensor) else v)
                        for k, v in n.saved_values().items()} for n in nodes]
    assert [sorted(s) for s in saved[True]] == [sorted(s) for s in saved[False]]
    np.testing.assert_array_equal(saved[True][1]["x"], saved[False][1]["x"])


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
def test_a_python_float_operand_keeps_the_tensor_dtype_and_its_gradient(dtype):
    x0 = np.array([0.9, -1.5, 2.0])
    x = sg.tensor(x0, dtype=dtype, requires_grad=True)
    y = 0.25 / (x * 1.5 - 0.75) + 2.5 * x
    assert y.dtype == dtype
    y.sum().backward()
    expected = numeric_gradient(lambda v: float((0.25 / (v * 1.5 - 0.75) + 2.5 * v).sum()),
                                (x0,), None, 0)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-3 if dtype == sg.float32
                               else 1e-6)


def test_the_sign_of_a_zero_float_operand_is_kept():
    x = sg.tensor([1.0, -2.0])
    assert np.all(np.signbit((x * -0.0).numpy()) == np.signbit(np.array([1.0, -2.0]) * -0.0))
    assert np.all(np.signbit((x * 0.0).numpy()) == np.signbit(np.array([1.0, -2.0]) * 0.0))


def test_backward_silences_fp_errors_and_restores_the_users_numpy_error_state(mode):
    """An infinite gradient (sqrt at 0) is a value, not a warning or an error, even under
    the user's np.seterr(divide="raise"); that state is back in place afterwards."""
    import warnings

    x = sg.tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt().sum()
    old = np.seterr(divide="raise", invalid="warn")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y.backward()
        state = np.geterr()
    finally:
        np.seterr(**old)
    assert state["divide"] == "raise" and state["invalid"] == "warn"
    np.testing.assert_array_equal(x.grad.numpy(), [np.inf, 0.25])


@pytest.mark.parametrize("shapes", [((4,), (1, 4)), ((), (3,)), ((2, 1), (1, 3)),
                                    ((3,), (3,))])
def test_broadcast_operands_get_gradients_of_their_own_shape(mode, shapes):
    """Equal sizes are not equal shapes ((4,) and (1, 4)): the record path must still
    unbroadcast, whichever builder records the node."""
    rng = np.random.default_rng(5)
    a0, b0 = (rng.standard_normal(s) for s in shapes)

    def f(a, b):
        return ((a * b + a) / (b * b + 1.0) - b).sin()

    a, b = (sg.tensor(v, dtype=sg.float64, requires_grad=True) for v in (a0, b0))
    (f(a, b) ** 2).sum().backward()
    for k, t in enumerate((a, b)):
        assert t.grad.shape == t.shape
        expected = numeric_gradient(lambda u, v: float((np.sin((u * v + u) / (v * v + 1.0) - v)
                                                        ** 2).sum()), (a0, b0), None, k)
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_an_operation_whose_result_dtype_differs_casts_the_gradient_back(mode):
    """float32 meeting float64 promotes (PyTorch's rule); each gradient keeps its input's
    dtype, and a float32 tensor meeting a Python float stays float32 throughout."""
    x = sg.tensor([0.5, 1.5], dtype=sg.float32, requires_grad=True)
    y = sg.tensor([2.0, 3.0], dtype=sg.float64, requires_grad=True)
    out = (x * y).sin() * 0.5
    assert out.dtype == sg.float64
    out.sum().backward()
    assert x.grad.dtype == sg.float32 and y.grad.dtype == sg.float64
    point = (np.array([0.5, 1.5]), np.array([2.0, 3.0]))
    for k, t in enumerate((x, y)):
        expected = numeric_gradient(lambda u, v: float((np.sin(u * v) * 0.5).sum()), point,
                                    None, k)
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-6)
