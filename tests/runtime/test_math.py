"""Tensor math with PyTorch's names and semantics, and the module-level mirrors."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


@pytest.mark.parametrize("method,reference", [
    ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("exp", np.exp),
    ("abs", np.abs), ("tanh", np.tanh), ("square", np.square), ("neg", np.negative),
    ("relu", lambda a: np.maximum(a, 0)), ("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
])
def test_elementwise_methods_and_functions(method, reference) -> None:
    t = sg.tensor(X, dtype=sg.float64, requires_grad=True)
    np.testing.assert_allclose(getattr(t, method)().detach().numpy(), reference(X))
    np.testing.assert_allclose(getattr(sg, method)(t).detach().numpy(), reference(X))


def test_log_sqrt_pow() -> None:
    t = sg.tensor([1.0, 4.0], dtype=sg.float64)
    np.testing.assert_allclose(t.log().numpy(), np.log([1.0, 4.0]))
    np.testing.assert_allclose(t.sqrt().numpy(), [1.0, 2.0])
    np.testing.assert_allclose(t.pow(2).numpy(), [1.0, 16.0])
    np.testing.assert_allclose(sg.pow(t, 0.5).numpy(), [1.0, 2.0])


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "std", "var"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), (-1, False),
                                         ((0, 1), False)])
def test_reductions_with_dim_and_keepdim(name, dim, keepdim) -> None:
    t = sg.tensor(X, dtype=sg.float64, requires_grad=True)
    if name in ("max", "min") and isinstance(dim, tuple):
        with pytest.raises(TypeError, match="dim must be an int"):  # one dim, as torch.max
            getattr(t, name)(dim=dim, keepdim=keepdim)
        return
    kwargs = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    out = getattr(t, name)(**kwargs)
    if name in ("max", "min") and dim is not None:
        out = out.values
    ref = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
           "std": lambda a, **k: np.std(a, ddof=1, **k),
           "var": lambda a, **k: np.var(a, ddof=1, **k)}[name]
    np.testing.assert_allclose(out.detach().numpy(),
                               ref(X, axis=dim, keepdims=keepdim and dim is not None))
    out.sum().backward()
    assert t.grad.shape == X.shape


def test_max_along_a_dim_returns_values_and_indices() -> None:
    t = sg.tensor(X, requires_grad=True)
    values, indices = t.max(1)
    assert indices.dtype is sg.int64 and indices.tolist() == [2, 0]
    assert values.tolist() == [2.0, 1.5]
    result = t.min(dim=0, keepdim=True)
    assert result.values.shape == (1, 3) and result.indices.tolist() == [[0, 0, 1]]
    values.sum().backward()
    assert t.grad.tolist() == [[0, 0, 1], [1, 0, 0]]


def test_full_max_splits_ties_evenly() -> None:
    t = sg.tensor([1.0, 3.0, 3.0], requires_grad=True)
    t.max().backward()
    assert t.grad.tolist() == [0.0, 0.5, 0.5]


def test_max_of_two_tensors_is_maximum() -> None:
    a, b = sg.tensor([1.0, 5.0]), sg.tensor([2.0, 4.0])
    assert a.max(b).tolist() == [2.0, 5.0] and sg.maximum(a, b).tolist() == [2.0, 5.0]


def test_std_var_unbiased_flag() -> None:
    t = sg.tensor([1.0, 2.0, 4.0], dtype=sg.float64)
    assert t.var().item() == pytest.approx(np.var([1, 2, 4], ddof=1))
    assert t.var(unbiased=False).item() == pytest.approx(np.var([1, 2, 4]))
    assert t.std(correction=0).item() == pytest.approx(np.std([1, 2, 4]))


def test_mean_of_integers_raises_like_pytorch() -> None:
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype.*Long"):
        sg.tensor([1, 2]).mean()


def test_softmax_and_log_softmax() -> None:
    t = sg.tensor(X, dtype=sg.float64, requires_grad=True)
    s = t.softmax(1)
    e = np.exp(X - X.max(1, keepdims=True))
    np.testing.assert_allclose(s.detach().numpy(), e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(sg.log_softmax(t, 1).detach().numpy(),
                               np.log(e / e.sum(1, keepdims=True)))
    (s[:, 0]).sum().backward()
    np.testing.assert_allclose(t.grad.numpy().sum(1), [0.0, 0.0], atol=1e-12)


def test_clamp() -> None:
    t = sg.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    c = t.clamp(min=0.0, max=1.0)
    assert c.tolist() == [0.0, 0.5, 1.0]
    c.sum().backward()
    assert t.grad.tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        t.clamp()


@pytest.mark.parametrize("a,b,message", [
    ((2, 3), (4, 5), r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    ((2, 3), (4,), r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
    ((3,), (4,), r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"),
    ((), (4,), "both arguments to matmul need to be at least 1D"),
])
def test_matmul_shape_errors(a, b, message) -> None:
    with pytest.raises(RuntimeError, match=message):
        sg.zeros(*a) @ sg.zeros(*b)


def test_matmul_forms_and_gradients() -> None:
    m = sg.tensor(X, requires_grad=True)
    v = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (m @ v).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), np.tile([1.0, 2.0, 3.0], (2, 1)))
    np.testing.assert_allclose(v.grad.numpy(), X.sum(0), rtol=1e-6)
    assert sg.matmul(v, v).item() == 14.0 and v.dot(v).item() == 14.0
    assert (m.mm(m.t())).shape == (2, 2) and m.mv(v).shape == (2,)


def test_shape_methods() -> None:
    t = sg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    assert t.reshape(3, 2).shape == (3, 2) and t.view(-1).shape == (6,)
    assert t.flatten().shape == (6,) and t.unsqueeze(1).shape == (2, 1, 3)
    assert t.unsqueeze(0).squeeze(0).shape == (2, 3) and t.T.shape == (3, 2)
    assert t.permute(1, 0).shape == (3, 2) and t.transpose(0, 1).shape == (3, 2)
    assert t[0].expand(4, 3).shape == (4, 3)
    y = t.t().reshape(6) * sg.arange(6.0)
    y.sum().backward()
    assert t.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_flatten_of_a_vector_is_itself() -> None:
    v = sg.ones(3, requires_grad=True)
    assert v.flatten() is v


def test_cat_stack_where_functions() -> None:
    a = sg.tensor([1.0, 2.0], requires_grad=True)
    b = sg.tensor([3.0], requires_grad=True)
    c = sg.cat([a, b])
    assert c.tolist() == [1.0, 2.0, 3.0]
    s = sg.stack([a, a * 2], dim=1)
    assert s.shape == (2, 2)
    w = sg.where(a > 1, a, sg.zeros(2))
    (c.sum() + s.sum() + w.sum()).backward()
    assert a.grad.tolist() == [4.0, 5.0] and b.grad.tolist() == [1.0]


def test_comparison_and_logic_operators() -> None:
    a = sg.tensor([1.0, 2.0, 3.0])
    assert (a > 1.5).tolist() == [False, True, True]
    assert ((a > 1.5) & (a < 2.5)).tolist() == [False, True, False]
    assert ((a < 1.5) | (a > 2.5)).tolist() == [True, False, True]
    assert (a == 2).tolist() == [False, True, False] and (a != 2).dtype is sg.bool


def test_broadcast_error_names_the_dimension() -> None:
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size "
                                           r"of tensor b \(4\) at non-singleton dimension 0"):
        sg.zeros(3) + sg.zeros(4)


def test_split_chunk_unbind() -> None:
    t = sg.arange(6.0)
    assert [p.tolist() for p in t.split(4)] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]
    assert [p.tolist() for p in t.chunk(3)] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert [p.item() for p in t[:2].unbind()] == [0.0, 1.0]


def test_where_of_two_numbers_is_float32() -> None:
    x = sg.tensor([1.0, 2.0])
    assert sg.where(x > 1, 1.0, 0.0).dtype is sg.float32


def test_comparing_with_none_is_plain_python() -> None:
    x = sg.tensor([1.0])
    assert (x == None) is False and (x != None) is True  # noqa: E711


def test_numpy_errors_surface_as_runtime_errors() -> None:
    with pytest.raises(RuntimeError, match="concatenate\\(\\): all the input arrays must have "
                                           "same number of dimensions"):
        sg.cat([sg.zeros(2, 2), sg.zeros(3)])


@pytest.mark.parametrize("op,name", [
    (lambda t: t.sign(), "SignBackward0"), (lambda t: t.floor(), "FloorBackward0"),
    (lambda t: t.ceil(), "CeilBackward0"), (lambda t: t.round(), "RoundBackward0"),
    (lambda t: np.round(t), "RoundBackward0"), (lambda t: t.trunc(), "TruncBackward0"),
])
def test_piecewise_constant_ops_are_recorded_with_zero_gradient(op, name) -> None:
    x = sg.tensor([1.5, -2.25], requires_grad=True)
    y = op(x)
    assert y.requires_grad and type(y.grad_fn).__name__ == name
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name", ["sign", "floor", "ceil", "trunc", "round"])
def test_piecewise_constant_module_functions_and_numpy_record_zero_nodes(name) -> None:
    x = sg.tensor([1.5, -2.25], requires_grad=True)
    node = f"{name.capitalize()}Backward0"
    for y in (getattr(sg, name)(x), getattr(np, name)(x)):
        assert y.requires_grad and type(y.grad_fn).__name__ == node
        assert y.tolist() == getattr(np, name)(np.array([1.5, -2.25])).tolist()
        (g,) = sg.autograd.grad(y.sum(), x)
        assert g.tolist() == [0.0, 0.0]


def test_round_with_decimals_is_round_backward1() -> None:
    x = sg.tensor([1.26, -2.5], requires_grad=True)
    y = x.round(decimals=1)
    assert type(y.grad_fn).__name__ == "RoundBackward1"
    assert type(sg.round(x, decimals=1).grad_fn).__name__ == "RoundBackward1"
    np.testing.assert_allclose(y.detach().numpy(), [1.3, -2.5])
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_zero_derivative_ops_without_a_pytorch_node_record_nothing() -> None:
    x = sg.tensor([1.5, -2.25], requires_grad=True)
    for y in (x > 0, x.argmax(), np.isnan(x), sg.tensor([1, 2]).floor()):
        assert not y.requires_grad and y.grad_fn is None


def test_piecewise_constant_ops_record_no_node_under_no_grad() -> None:
    x = sg.tensor([1.5, -2.25], requires_grad=True)
    with sg.no_grad():
        y = x.floor()
    assert not y.requires_grad and y.grad_fn is None


def test_a_straight_through_floor_serves_method_function_and_numpy() -> None:
    from srcgrad.rules.registry import restore, snapshot

    table = snapshot()
    try:
        sg.defvjp(np.floor, lambda g, out, x: g)
        x = sg.tensor([0.4, 1.6], requires_grad=True)
        (x.floor() + 2 * sg.floor(x) + 4 * np.floor(x)).sum().backward()
        assert x.grad.tolist() == [7.0, 7.0]
    finally:
        restore(table)


def test_second_derivative_of_a_piecewise_linear_function_is_zero() -> None:
    x = sg.tensor([1.5, -2.0], requires_grad=True)
    (g,) = sg.autograd.grad(x.abs().sum(), x, create_graph=True)
    assert g.requires_grad and g.tolist() == [1.0, -1.0]
    (h,) = sg.autograd.grad(g.sum(), x)
    assert h.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("op,expected", [
    (lambda: sg.tensor([-1.0]).sqrt(), "nan"),
    (lambda: sg.tensor([0.0]).log(), "-inf"),
    (lambda: sg.tensor([1.0]) / sg.tensor([0.0]), "inf"),
    (lambda: sg.tensor([1.0]) / 0, "inf"),
    (lambda: np.log(sg.tensor([0.0])), "-inf"),
    (lambda: sg.tensor([1e30]) * 1e30, "inf"),
    (lambda: sg.tensor([0.0]).log().sum(), "-inf"),
    (lambda: sg.tensor([1.0]).div_(0), "inf"),
    (lambda: sg.tensor([-1.0]) ** 0.5, "nan"),
])
def test_floating_point_errors_in_the_forward_pass_are_silent(op, expected) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        result = op()
    assert str(float(result.reshape(-1)[0])) == expected


def test_floating_point_errors_in_the_backward_pass_are_silent() -> None:
    import warnings

    x = sg.tensor([0.0, -1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.sqrt().sum().backward()
    assert str(x.grad.tolist()) == "[inf, nan]"


def test_silencing_keeps_the_users_numpy_error_state() -> None:
    old = np.seterr(divide="raise")
    try:
        sg.tensor([1.0]) / 0
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))
        with pytest.raises(RuntimeError, match="must match"):  # a failing op restores it too
            sg.tensor([1.0, 2.0]) / sg.tensor([1.0, 2.0, 3.0])
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))
    finally:
        np.seterr(**old)
    assert np.geterr() == old


@pytest.mark.parametrize("reduce,name", [
    (lambda x: x.sum(), "SumBackward0"), (lambda x: x.sum(dim=None), "SumBackward1"),
    (lambda x: x.sum(None), "SumBackward1"), (lambda x: x.sum(dim=()), "SumBackward1"),
    (lambda x: x.sum(dim=[]), "SumBackward1"), (lambda x: sg.sum(x, dim=None), "SumBackward1"),
    (lambda x: x.mean(), "MeanBackward0"), (lambda x: x.mean(dim=None), "MeanBackward1"),
    (lambda x: x.mean(()), "MeanBackward1"), (lambda x: x.var(dim=None), "VarBackward0"),
    (lambda x: x.std(dim=()), "StdBackward0"),
])
def test_an_explicit_dim_none_or_empty_reduces_everything_with_the_dim_overloads_name(
        reduce, name) -> None:
    x = sg.tensor([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]], requires_grad=True)
    y = reduce(x)
    assert type(y.grad_fn).__name__ == name and y.shape == ()
    whole = reduce(sg.tensor(x.detach().numpy().reshape(-1)))  # the same over all elements
    assert y.item() == pytest.approx(whole.item())


def test_dim_none_with_keepdim_keeps_every_dimension() -> None:
    x = sg.ones(2, 3, requires_grad=True)
    y = x.sum(dim=None, keepdim=True)
    assert y.shape == (1, 1) and type(y.grad_fn).__name__ == "SumBackward1"
    y.backward(sg.ones(1, 1))
    assert x.grad.tolist() == [[1.0] * 3] * 2

