"""NumPy's tuple-returning functions applied to Tensors (rules/multi.py): ``np.split(t, 3)``
returns a list of Tensors, each recorded as its own node with PyTorch's name, and the
gradient through the pieces matches central finite differences and the compiler's."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient

X = np.array([[0.6, -1.3, 0.4], [1.1, -0.7, 0.9], [0.2, 0.5, -1.4], [1.3, 0.8, -0.3]])


def pieces_program(x):
    a, b = np.split(x, 2)
    c, d = np.hsplit(x, [1])
    e = np.array_split(x, 3, axis=1)
    return np.sum(a * b) + np.sum(np.sin(c) * d[:, :1]) + np.sum(e[2] * e[0] ** 2)


def test_numpy_split_family_on_tensors_returns_tensors_and_differentiates():
    t = sg.tensor(X, requires_grad=True)
    a, b = np.split(t, 2)
    assert isinstance(a, sg.Tensor) and a.shape == (2, 3)
    assert type(a.grad_fn).__name__ == "SplitBackward0"
    assert type(np.split(t, [1])[1].grad_fn).__name__ == "SplitWithSizesBackward0"
    out = pieces_program(t)
    out.backward()
    expected = numeric_gradient(pieces_program, [X], {}, 0)
    assert_close(t.grad.numpy(), expected)
    assert_close(sg.grad(pieces_program)(X), expected)


def test_numpy_unstack_on_a_tensor_differentiates():
    def f(x):
        rows = np.unstack(x)
        return np.sum(rows[0] * rows[3]) + np.sum(np.unstack(x, axis=1)[2] ** 3)

    t = sg.tensor(X, requires_grad=True)
    assert type(np.unstack(t)[0].grad_fn).__name__ == "UnbindBackward0"
    f(t).backward()
    assert_close(t.grad.numpy(), numeric_gradient(f, [X], {}, 0))


def test_numpy_split_of_a_tensor_that_does_not_divide_raises_numpys_error():
    with pytest.raises((ValueError, RuntimeError), match="equal division"):
        np.split(sg.tensor(X, requires_grad=True), 3)
