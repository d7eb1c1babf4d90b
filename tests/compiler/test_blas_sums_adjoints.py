"""Cotangents summed over a batch's first axis (a bias) or a row's last axis (a keepdims
row statistic: the max shift of a softmax) by a product with ones (issue 16,
``rules/blas_sums.py``): the same sums as ``np.sum`` (NaN, inf, non-contiguous and 3-d
inputs), a float32 row sum left to NumPy's pairwise sum (its batch sums:
``test_float32_batch_sums.py``), and gradients of batches large enough to take the product
checked against central differences in every mode."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes, split_parameters
from fd import assert_close, numeric_gradient

import srcgrad as sg
from srcgrad.rules.blas_sums import blas_summable
from srcgrad.rules.helpers import unbroadcast

rng = np.random.default_rng(1632)


@pytest.mark.parametrize("xshape, shape", [
    ((150, 3), (3,)), ((150, 3), (1, 3)), ((150, 3), (150, 1)), ((64, 40), (40,)),
    ((5, 30, 4), (5, 30, 1)), ((5, 30, 4), (30, 4)), ((300, 10), ()),
])
def test_batch_and_row_sums_of_large_float64_cotangents_equal_numpy_sums(xshape, shape):
    x = rng.standard_normal(xshape)
    assert blas_summable(x)
    lead = len(xshape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and xshape[lead + i] != 1)
    want = np.sum(x, axis=axes).reshape(shape)
    got = unbroadcast(x, shape)
    assert got.shape == want.shape and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_row_sums_of_transposed_views_and_special_values_match_numpy():
    x = rng.standard_normal((3, 150)).T  # not C-contiguous
    np.testing.assert_allclose(unbroadcast(x, (150, 1)), x.sum(1, keepdims=True), rtol=1e-13, atol=1e-13)
    y = rng.standard_normal((100, 4))
    y[3, 1], y[7, 2], y[9, 0], y[9, 3] = np.nan, np.inf, np.inf, -np.inf
    # the same NaN and infinities; finite sums within rounding (another summation order)
    np.testing.assert_allclose(unbroadcast(y, (100, 1)), y.sum(1, keepdims=True), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(unbroadcast(y, (4,)), y.sum(0), rtol=1e-13, atol=1e-13)
    assert np.isnan(unbroadcast(y, (100, 1))[9, 0]) and np.isinf(unbroadcast(y, (4,))[0])


def test_float32_and_small_cotangents_keep_numpys_sum():
    x32 = rng.standard_normal((200, 3)).astype(np.float32)
    assert not blas_summable(x32) and not blas_summable(np.ones((4, 3)))
    got = unbroadcast(x32, (200, 1))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.add.reduce(x32, 1, keepdims=True))


X = rng.standard_normal((40, 3))
Y = np.eye(5)[rng.integers(0, 5, 40)] * 0.7  # rows summing to 0.7: the shift's adjoint is not 0
SIZES = ((3, 8), (8,), (8, 5), (5,))


def unpack(p):
    return split_parameters(p, SIZES)


def softmax_xent_flat(p):
    W1, b1, W2, b2 = unpack(p)
    h = np.tanh(X @ W1 + b1)  # 40x8: b1's cotangent a batch sum
    z = h @ W2 + b2  # 40x5: the max shift's adjoint a row sum
    z = z - np.max(z, axis=1, keepdims=True)
    return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * Y, axis=1))


P = rng.standard_normal(sum(int(np.prod(s)) for s in SIZES)) * 0.7


def test_batch_softmax_xent_with_biases_and_max_shift_differentiates_in_every_mode():
    check_all_modes(softmax_xent_flat, P)


def test_batch_bias_and_max_shift_gradients_by_argument_match_central_differences():
    def loss(W1, b1, W2, b2):
        h = np.tanh(X @ W1 + b1)
        z = h @ W2 + b2
        z = z - np.max(z, axis=1, keepdims=True)
        return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * Y, axis=1))

    args = unpack(P)
    got = sg.grad(loss, wrt=(0, 1, 2, 3))(*args)
    for place in range(4):
        assert_close(got[place], numeric_gradient(loss, args, None, place))
