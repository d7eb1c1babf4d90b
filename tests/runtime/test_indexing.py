"""Indexing with ints, slices, None, ..., integer and bool tensors (API.md section 3)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg

A = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("index", [
    0, -1, (1, 2), (0, slice(1, 3)), (slice(None), 1), (Ellipsis, 2), (None, 0),
    (0, None, slice(None, None, 2)), (Ellipsis,), (slice(None),), (1, Ellipsis, None),
    ([0, 1, 1],), (np.array([True, False]),), (0, [2, 0]),
])
def test_values_match_numpy(index) -> None:
    t = sg.tensor(A)
    parts = index if isinstance(index, tuple) else (index,)
    sg_index = tuple(sg.tensor(p) if isinstance(p, (list, np.ndarray)) else p for p in parts)
    np.testing.assert_array_equal(t[sg_index].numpy(), A[index])


@pytest.mark.parametrize("index", [0, (1, slice(0, 2)), (Ellipsis, -1), (None, 1), [1, 1, 0]])
def test_gradient_scatters_back(index) -> None:
    x = sg.tensor(A, requires_grad=True)
    y = x[index]
    g = np.random.default_rng(0).standard_normal(y.shape)
    y.backward(sg.tensor(g))
    expected = np.zeros_like(A)
    np.add.at(expected, index if not isinstance(index, list) else (np.array(index),), g)
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_repeated_indices_accumulate() -> None:
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[sg.tensor([0, 0, 2, 0])].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


def test_boolean_tensor_index() -> None:
    x = sg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x[x > 0]
    assert y.tolist() == [1.0, 3.0] and type(y.grad_fn).__name__ == "IndexBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]


def test_basic_indexing_chains_views_like_pytorch() -> None:
    m = sg.randn(3, 4, requires_grad=True)
    y = m[0, 1:3]
    assert type(y.grad_fn).__name__ == "SliceBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "SelectBackward0"
    assert type(m[:, 0].grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    assert type(m[:].grad_fn).__name__ == "SliceBackward0"
    assert type(m[None].grad_fn).__name__ == "UnsqueezeBackward0"


def test_too_many_indices() -> None:
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        sg.zeros(4)[:, 0]


def test_out_of_bounds() -> None:
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with "
                                         "size 4"):
        sg.zeros(4)[5]


def test_negative_step_is_refused() -> None:
    with pytest.raises(ValueError, match="step must be greater than zero"):
        sg.zeros(4)[::-1]


def test_float_tensor_index_is_refused() -> None:
    with pytest.raises(IndexError, match="tensors used as indices must be long"):
        sg.zeros(4)[sg.tensor([0.5])]


def test_iterating_a_tensor_selects_rows() -> None:
    x = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    rows = list(x)
    assert [r.tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0]]
    sum(r.sum() for r in rows).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
