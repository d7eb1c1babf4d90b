"""A float32 batch's cotangent summed over its first axis (a bias's gradient) by a product
with float32 ones (``rules/blas_sums.py``), as float64 is: NumPy adds the rows one after
another there, and BLAS's sum is as accurate (checked against the float64 sum) and faster.
The result stays float32; NaN and infinities propagate as in ``np.sum``; a row's last
axis and small arrays keep NumPy's own sum."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules.blas_sums import batch_summable, blas_summable
from srcgrad.rules.helpers import unbroadcast

rng = np.random.default_rng(3264)


@pytest.mark.parametrize("xshape", [(64, 128), (512, 256), (300, 3), (5, 40)])
def test_float32_batch_sums_are_float32_and_as_accurate_as_numpys(xshape):
    x = rng.standard_normal(xshape).astype(np.float32)
    assert batch_summable(x) and not blas_summable(x)
    got = unbroadcast(x, xshape[1:])
    assert type(got) is np.ndarray and got.dtype == np.float32 and got.shape == xshape[1:]
    exact = x.astype(np.float64).sum(0)
    numpy_error = np.max(np.abs(np.add.reduce(x, 0) - exact))
    assert np.max(np.abs(got - exact)) <= 2 * numpy_error + 4 * np.finfo(np.float32).eps


def test_float32_batch_sums_of_special_values_and_views():
    x = rng.standard_normal((100, 6)).astype(np.float32)
    x[3, 1], x[7, 2], x[9, 0], x[9, 3] = np.nan, np.inf, np.inf, -np.inf
    got = unbroadcast(x, (6,))
    want = x.sum(0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.isnan(got[1]) and got[2] == np.inf and got[0] == np.inf and got[3] == -np.inf
    t = rng.standard_normal((6, 100)).astype(np.float32).T  # not C-contiguous
    np.testing.assert_allclose(unbroadcast(t, (6,)), t.sum(0), rtol=1e-5, atol=1e-5)
    assert unbroadcast(t, (6,)).dtype == np.float32


def test_small_and_row_float32_sums_keep_numpys_sum():
    small = rng.standard_normal((4, 3)).astype(np.float32)
    assert not batch_summable(small)
    np.testing.assert_array_equal(unbroadcast(small, (3,)), np.add.reduce(small, 0))
    rows = rng.standard_normal((200, 3)).astype(np.float32)
    np.testing.assert_array_equal(unbroadcast(rows, (200, 1)),
                                  np.add.reduce(rows, 1, keepdims=True))
    half = rng.standard_normal((100, 4)).astype(np.float16)
    assert not batch_summable(half)


def test_a_float32_bias_gradient_matches_the_float64_one():
    W = (rng.standard_normal((8, 16)) / 3).astype(np.float32)
    b = (rng.standard_normal(16) * 0.1).astype(np.float32)
    x = rng.standard_normal((128, 8)).astype(np.float32)

    def loss(W, b, x):
        return np.sum(np.tanh(x @ W + b) ** 2)

    got = sg.grad(loss, wrt=1)(W, b, x)
    want = sg.grad(loss, wrt=1)(*(a.astype(np.float64) for a in (W, b, x)))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
