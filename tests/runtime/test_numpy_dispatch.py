"""NumPy functions applied to Tensors, and PyTorch's type promotion."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg


def test_ufunc_on_a_tensor_records() -> None:
    x = sg.tensor([0.5, 1.0], requires_grad=True)
    y = np.sin(x)
    assert isinstance(y, sg.Tensor) and type(y.grad_fn).__name__ == "SinBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.0]), rtol=1e-6)


def test_numpy_function_on_a_tensor_keeps_numpy_semantics() -> None:
    x = sg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = np.sum(x, axis=0, keepdims=True)
    assert y.shape == (1, 3) and type(y.grad_fn).__name__ == "SumBackward1"
    z = np.mean(np.transpose(x) ** 2)
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.arange(6.0).reshape(2, 3) / 6)


def test_array_and_tensor_operators_both_ways() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    a = np.array([3.0, 4.0], dtype=np.float32)
    for y in (a * x, x * a, a + x, np.multiply(a, x)):
        assert isinstance(y, sg.Tensor) and y.requires_grad


def test_concatenate_and_stack_and_where() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    y = np.concatenate([x, x * 2])
    assert y.tolist() == [1.0, 2.0, 2.0, 4.0]
    z = np.where(x > 1, x, 0.0)
    (y.sum() + np.stack([x, x]).sum() + z.sum()).backward()
    assert x.grad.tolist() == [5.0, 6.0]


def test_zero_derivative_functions_pass_through() -> None:
    x = sg.tensor([1.5, -2.0], requires_grad=True)
    assert np.shape(x) == (2,) and np.ndim(x) == 1
    s = np.sign(x)  # recorded with a zero gradient, as PyTorch does
    assert isinstance(s, sg.Tensor) and s.tolist() == [1.0, -1.0]
    assert not (x > 0).requires_grad
    assert np.argmax(x).item() == 0
    z = np.zeros_like(x)
    assert z.tolist() == [0.0, 0.0] and not z.requires_grad


def test_numpy_function_without_a_rule() -> None:
    x = sg.tensor([1.0, 2.0])
    assert np.percentile(x, 50).item() == 1.5  # (np.median has a rule now; this has none)
    with pytest.raises(TypeError, match="numpy.percentile has no derivative rule.*sg.defvjp"):
        np.percentile(sg.tensor([1.0], requires_grad=True), 50)


def test_out_argument_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot write into a srcgrad Tensor"):
        np.add(sg.ones(2), 1, out=sg.ones(2))


@pytest.mark.parametrize("make,dtype", [
    (lambda: sg.ones(2) * 2.5, sg.float32),
    (lambda: sg.ones(2, dtype=sg.int64) * 0.5, sg.float32),
    (lambda: sg.ones(2) + sg.ones(2, dtype=sg.float64), sg.float64),
    (lambda: np.sin(sg.tensor([1, 2])), sg.float32),
    (lambda: sg.tensor([1, 2]) / sg.tensor([2, 2]), sg.float32),
    (lambda: sg.tensor([1, 2]) + 1, sg.int64),
    (lambda: sg.ones(2) + sg.tensor(1.0, dtype=sg.float64), sg.float32),
    (lambda: sg.tensor([1, 2]) + sg.tensor(1.0, dtype=sg.float64), sg.float64),
    (lambda: sg.tensor([True]) + 1, sg.int64),
    (lambda: sg.tensor([1, 2], dtype=sg.int32) + 5, sg.int32),
    (lambda: sg.tensor([1, 2]) < 1.5, sg.bool),
    (lambda: np.mean(sg.tensor([1, 2])), sg.float32),
    (lambda: sg.tensor([1, 2]).sqrt(), sg.float32),
])
def test_pytorch_type_promotion(make, dtype) -> None:
    assert make().dtype is dtype


def test_mixed_dtype_gradient_comes_back_in_each_inputs_dtype() -> None:
    a = sg.tensor([1.0], requires_grad=True)
    b = sg.tensor([2.0], dtype=sg.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype is sg.float32 and b.grad.dtype is sg.float64
