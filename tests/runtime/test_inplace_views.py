"""Version-counted in-place ops, views sharing storage and counter, CopySlices."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg


def test_in_place_methods_change_values_and_bump_the_version() -> None:
    t = sg.tensor([1.0, 2.0])
    t.add_(1)
    t.sub_(0.5)
    t.mul_(2)
    t.div_(3)
    assert t.tolist() == pytest.approx([1.0, 5.0 / 3.0]) and t._version == 4
    t.clamp_(0, 1.5)
    assert t.tolist() == pytest.approx([1.0, 1.5])
    t.fill_(7)
    assert t.tolist() == [7.0, 7.0]
    t.zero_()
    assert t.tolist() == [0.0, 0.0]
    t.copy_(sg.tensor([3.0, 4.0]))
    t += 1
    assert t.tolist() == [4.0, 5.0] and t._version == 9


def test_in_place_on_a_leaf_requiring_grad() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(),
               lambda: x.__setitem__(0, 2.0)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad|a view of "
                                               "a leaf Variable that requires grad"):
            op()


def test_in_place_on_a_view_of_a_leaf() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation."):
        x[0:1].add_(1)


def test_in_place_on_a_leaf_is_allowed_without_grad() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    with sg.no_grad():
        x.sub_(0.5)
    assert x.tolist() == [0.5] and x.is_leaf and x._version == 1


def test_changing_a_saved_input_breaks_its_backward() -> None:
    a = sg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a * 2
    c = b * b
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient "
                       r"computation has been modified by an inplace operation: "
                       r"\[srcgrad.FloatTensor \[4\]\], which is output 0 of Add, is at "
                       r"version 1; expected version 0 instead"):
        c.sum().backward()


def test_changing_a_saved_leaf_names_no_origin() -> None:
    a = sg.tensor([1.0, 2.0], requires_grad=True)
    w = sg.ones(2)
    c = a * w
    w.add_(1)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[2\]\] is at version 1; "
                                           r"expected version 0"):
        c.sum().backward()


def test_changing_a_saved_output_breaks_its_backward() -> None:
    a = sg.tensor([1.0, 2.0], requires_grad=True)
    c = a.exp()
    c.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of Exp, is at version 1"):
        c.sum().backward()


def test_shape_only_saves_are_not_broken_by_in_place() -> None:
    a = sg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    s = b.sum()  # saves only b's shape
    b.mul_(5)
    s.backward()  # s was made before mul_: its history is b's old one (a * 1)
    assert a.grad.tolist() == [1.0, 1.0]


def test_in_place_rewrites_history() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(y)  # y <- y * y: d/dx = 2 * (2x) * 2
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [8.0, 16.0]


@pytest.mark.parametrize("op,name", [
    (lambda t, y: t.add_(1), "AddBackward0"), (lambda t, y: t.mul_(y), "MulBackward0"),
    (lambda t, y: t.zero_(), "ZeroBackward0"), (lambda t, y: t.fill_(1), "FillBackward2"),
    (lambda t, y: t.clamp_(0, 1), "ClampBackward1"), (lambda t, y: t.copy_(y), "CopyBackwards"),
    (lambda t, y: t.__setitem__(0, y[1]), "CopySlices"),
    (lambda t, y: t.__setitem__([0, 1], y[:2]), "IndexPutBackward0"),
])
def test_in_place_node_names(op, name) -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = sg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    t = x * 1
    op(t, y)
    assert type(t.grad_fn).__name__ == name


def test_views_share_storage_and_version() -> None:
    base = sg.zeros(2, 3)
    for view in (base[0], base[:, 1:], base.view(6), base.t(), base.unsqueeze(0),
                 base.transpose(0, 1), base.expand(2, 2, 3)[0], base[None]):
        assert view._base is base and np.shares_memory(view._data, base._data)
    v = base[0]
    v.add_(1)
    assert base.tolist()[0] == [1.0, 1.0, 1.0] and base._version == 1 and v._version == 1


def test_reshape_copies_when_it_must_and_view_refuses() -> None:
    m = sg.zeros(3, 2).t()
    r = m.reshape(6)
    assert r._base is None
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        m.view(6)
    with pytest.raises(RuntimeError, match=r"shape '\[4\]' is invalid for input of size 3"):
        sg.zeros(3).view(4)


def test_setitem_on_a_non_leaf_reaches_history_and_value() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = sg.tensor(10.0, requires_grad=True)
    y = x * 2
    y[1] = v * 3
    assert type(y.grad_fn).__name__ == "CopySlices"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["MulBackward0",
                                                                       "MulBackward0"]
    (y * sg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 6.0] and v.grad.item() == 6.0
    assert y.tolist() == [2.0, 30.0, 6.0]


def test_setitem_of_a_number() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y[0] = 5.0
    assert [n is None for n, _ in y.grad_fn.next_functions] == [False, True]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0]


def test_setitem_into_a_leaf_that_does_not_require_grad() -> None:
    w = sg.tensor([1.0, 2.0], requires_grad=True)
    z = sg.zeros(3)
    z[1:] = w * w
    assert not z.is_leaf and type(z.grad_fn).__name__ == "CopySlices"
    z.sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]


def test_advanced_setitem_is_index_put() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = sg.tensor([7.0, 8.0], requires_grad=True)
    y = x * 1
    y[sg.tensor([0, 2])] = v
    y.backward(sg.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [0.0, 2.0, 0.0] and v.grad.tolist() == [1.0, 3.0]


def test_setitem_with_repeated_indices_keeps_pytorch_index_put_semantics() -> None:
    # PyTorch: index_put_ (accumulate=False) keeps the last write; its backward is
    # values: grad.index(indices), so every occurrence gets the cotangent (derivatives.yaml).
    # The compiler's NumPy `y[idx] = v` differentiates what NumPy computes instead.
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = sg.tensor([7.0, 8.0, 9.0], requires_grad=True)
    y = x * 1
    y[sg.tensor([0, 2, 2])] = v
    assert y.tolist() == [7.0, 2.0, 9.0]
    y.backward(sg.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [0.0, 2.0, 0.0] and v.grad.tolist() == [1.0, 3.0, 3.0]


def test_augmented_setitem_with_repeated_indices_keeps_pytorch_semantics() -> None:
    # y[idx] += v is tmp = y[idx] (IndexBackward0); tmp += v; y[idx] = tmp (index_put_)
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = sg.tensor([7.0, 8.0, 9.0], requires_grad=True)
    y = x * 1
    y[sg.tensor([0, 2, 2])] += v
    assert y.tolist() == [8.0, 2.0, 12.0]
    y.backward(sg.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [1.0, 2.0, 6.0] and v.grad.tolist() == [1.0, 3.0, 3.0]


def test_boolean_mask_setitem() -> None:
    x = sg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    y[y < 0] = 0.0
    y.sum().backward()
    assert y.tolist() == [1.0, 0.0, 3.0] and x.grad.tolist() == [1.0, 0.0, 1.0]


def test_in_place_on_a_view_of_a_non_leaf_uses_copyslices() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v = b[0:2]
    v.mul_(3)
    assert type(b.grad_fn).__name__ == "CopySlices"
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert b.tolist() == [3.0, 6.0, 3.0]
    b.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 1.0]


def test_sibling_view_sees_the_new_history() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v1, v2 = b[0:2], b[1:3]
    v1.mul_(2)
    assert type(v2.grad_fn).__name__ == "AsStridedBackward0"
    v2.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 1.0]


def test_in_place_integer_result_type_check() -> None:
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        sg.tensor([1, 2]).add_(0.5)


def test_writing_into_an_expanded_view_raises() -> None:
    e = sg.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1)


def test_clone_is_a_recorded_copy() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert not np.shares_memory(c._data, x._data)
    c.mul_(3)  # a non-leaf: allowed
    c.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("cast,dtype", [
    (lambda t: t.double(), sg.float64), (lambda t: t.to(sg.float64), sg.float64),
    (lambda t: t.double().float(), sg.float32),
])
def test_casts_are_recorded(cast, dtype) -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = cast(x)
    assert y.dtype is dtype
    (y * y).sum().backward()
    assert x.grad.dtype is sg.float32 and x.grad.tolist() == [2.0, 4.0]


def test_cast_to_the_same_dtype_returns_the_tensor() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    assert x.float() is x and x.to(sg.float32) is x


def test_copyslices_second_order() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], dtype=sg.float64, requires_grad=True)
    y = x * x
    y[1] = x[0] ** 3  # y = [x0^2, x0^3, x2^2]
    s = (y * y).sum()  # x0^4 + x0^6 + x2^4
    (g,) = sg.autograd.grad(s, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [4 + 6, 0.0, 4 * 27])
    (h,) = sg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [12 + 30, 0.0, 12 * 9])


def test_view_written_in_place_second_order() -> None:
    x = sg.tensor([1.0, 2.0], dtype=sg.float64, requires_grad=True)
    b = x * 1
    v = b[0:1]
    v.mul_(x[1])  # b = [x0 * x1, x1]
    (g,) = sg.autograd.grad((b * b).sum(), x, create_graph=True)  # x0^2 x1^2 + x1^2
    np.testing.assert_allclose(g.detach().numpy(), [2 * 4, 2 * 2 + 2 * 2])
    (h,) = sg.autograd.grad(g[0], x)  # d(2 x0 x1^2)
    np.testing.assert_allclose(h.numpy(), [8.0, 8.0])


def test_copyslices_with_a_transposed_incoming_gradient() -> None:
    # the cotangent reaching CopySlices is F-ordered (it comes through .T)
    x = sg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    c = x * 1
    c[0] = 5.0
    (c.T * sg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [2.0, 4.0, 6.0]]


def test_write_into_a_transposed_view() -> None:
    x = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    c = x * 1
    t = c.T
    t[0] = 0.0  # zeroes c's first column
    assert c.tolist() == [[0.0, 2.0], [0.0, 4.0]]
    (c * sg.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [0.0, 4.0]]
