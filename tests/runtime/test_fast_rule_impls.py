"""Rule implementations written for speed on small arrays keep their values and types:
``sigmoid`` (one division, the numerator picked first) and the matrix-layer forms of
``matmul``'s adjoints (the same product as their general path)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules.products import _matmul_adjoint_x, _matmul_adjoint_y
from srcgrad.rules.runtime_ops import relu, sigmoid
from tests.fd import numeric_gradient


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sigmoid_is_the_logistic_function_without_overflow_in_every_float_dtype(dtype):
    x = np.array([-800.0, -40.0, -3.5, -0.0, 0.0, 0.7, 12.0, 800.0, np.inf, -np.inf, np.nan])
    got = sigmoid(x.astype(dtype))
    assert got.dtype == dtype
    with np.errstate(over="ignore"):
        want = 1.0 / (1.0 + np.exp(-x))  # (float64: exact enough for every dtype here)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=np.finfo(dtype).eps * 2,
                               atol=np.finfo(dtype).tiny)
    assert got[0] == 0.0 and got[7] == 1.0 and np.isnan(got[-1])
    scalar = sigmoid(np.array(0.7, dtype=dtype))  # a 0-d array stays a 0-d array
    assert type(scalar) is np.ndarray and scalar.shape == () and scalar.dtype == dtype


def test_sigmoid_of_a_tensor_differentiates_like_finite_differences():
    x0 = np.array([-3.0, -0.2, 0.0, 1.1, 6.0])
    x = sg.tensor(x0, requires_grad=True)
    (x.sigmoid() ** 2).sum().backward()
    expected = numeric_gradient(lambda v: float(np.sum((1 / (1 + np.exp(-v))) ** 2)), (x0,),
                                None, 0)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-9)


def _general_x(c, y, shape):  # the adjoint's general path, as it reads for these forms
    c2 = c[None, :] if len(shape) == 1 else c
    gx = np.matmul(c2, np.swapaxes(y, -1, -2))
    return np.reshape(gx, shape)


def _general_y(x, c, shape):
    x2 = x[None, :] if x.ndim == 1 else x
    c2 = c[None, :] if x.ndim == 1 else c
    return np.reshape(np.matmul(np.swapaxes(x2, -1, -2), c2), shape)


@pytest.mark.parametrize("x_shape", [(4,), (5, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_adjoints_of_a_layer_are_the_general_paths_product(x_shape, dtype):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(x_shape).astype(dtype)
    y = rng.standard_normal((4, 3)).astype(dtype)
    c = rng.standard_normal(np.shape(x @ y)).astype(dtype)
    gx, gy = _matmul_adjoint_x(c, y, x_shape), _matmul_adjoint_y(x, c, y.shape)
    assert gx.shape == x_shape and gy.shape == y.shape and gx.dtype == gy.dtype == dtype
    np.testing.assert_array_equal(gx, _general_x(c, y, x_shape))
    np.testing.assert_array_equal(gy, _general_y(x, c, y.shape))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
def test_relu_is_numpys_maximum_with_zero_in_every_dtype(dtype):
    """relu meets a 0-d zero of the input's dtype (float32/64) where NumPy would convert a
    Python 0 per call: the same values (nan kept, -0.0 kept), dtype and result types."""
    values = [-1.0, -0.0, 0.0, 2.5, np.nan, np.inf, -np.inf] if dtype != np.int64 else [-1, 0, 3]
    x = np.array(values).astype(dtype)
    got, want = relu(x), np.maximum(x, 0)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert type(relu(x[1:2].reshape(()))) is type(np.maximum(x[1:2].reshape(()), 0))
