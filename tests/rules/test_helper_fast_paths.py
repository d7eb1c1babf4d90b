"""The cheap paths of the helpers emitted code calls on every gradient (issue 16): max/min
weights along one axis without moving axes, ``unreduce`` by a reshape, ``unbroadcast`` by
``np.add.reduce``, each computing what the general path computes (ties, NaN, negative
and 1-tuple axes, keepdims, stretched and leading axes)."""

from __future__ import annotations

import numpy as np
import pytest

from srcgrad.rules.helpers import unbroadcast, unreduce
from srcgrad.rules.reductions import max_weights, min_weights

TIED = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 2.0], [np.nan, 5.0, np.nan, 1.0]])


def first_pick_onehot(x, axis, arg):
    """One-hot of the element ``arg`` picks along ``axis`` (the first one among ties)."""
    out = np.zeros(x.shape)
    np.put_along_axis(out, np.expand_dims(arg(x, axis=axis), axis), 1.0, axis)
    return out


@pytest.mark.parametrize("axis", [0, 1, -1, (1,), (-2,)])
@pytest.mark.parametrize("weights, arg", [(max_weights, np.argmax), (min_weights, np.argmin)])
def test_weights_along_one_axis_go_to_the_first_pick_nan_included(axis, weights, arg):
    for x in (TIED, TIED[:2], np.moveaxis(np.stack([TIED, -TIED]), 0, 2)):
        a = axis[0] if isinstance(axis, tuple) else axis
        got = weights(x, axis)
        assert got.shape == x.shape and got.dtype == x.dtype
        np.testing.assert_array_equal(got, first_pick_onehot(x, a, arg))


def test_weights_of_float32_keep_the_dtype_and_ints_give_float64():
    assert max_weights(TIED[:2].astype(np.float32), 1).dtype == np.float32
    assert max_weights(np.array([[1, 3], [4, 2]]), 0).dtype == np.float64


@pytest.mark.parametrize("shape, axis, keepdims", [
    ((4, 3), 1, False), ((4, 3), 0, False), ((4, 3), -1, True), ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (2, 0), True), ((5,), 0, False), ((2, 1, 3), 1, False), ((2, 3), None, False),
])
def test_unreduce_broadcasts_a_reduction_cotangent_back(shape, axis, keepdims):
    x = np.arange(float(np.prod(shape))).reshape(shape) + 1.0
    g = np.sum(x, axis=axis, keepdims=keepdims) * 0.5
    got = unreduce(g, shape, axis, keepdims)
    kept = g if keepdims or axis is None else np.expand_dims(
        g, tuple(a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)))
    np.testing.assert_array_equal(got, np.broadcast_to(kept, shape))


def test_unreduce_of_a_scalar_cotangent_fills_the_shape():
    np.testing.assert_array_equal(unreduce(np.float64(2.0), (3,), 0), np.full(3, 2.0))


@pytest.mark.parametrize("xshape, shape", [((4, 3), (3,)), ((4, 3), (4, 1)), ((2, 4, 3), (1, 3)),
                                           ((4, 3), ()), ((4, 3), (4, 3))])
def test_unbroadcast_sums_the_axes_broadcasting_added_or_stretched(xshape, shape):
    x = np.arange(float(np.prod(xshape))).reshape(xshape)
    got = unbroadcast(x, shape)
    lead = len(xshape) - len(shape)
    want = np.sum(x, axis=tuple(range(lead))) if lead else x
    want = np.sum(want, axis=tuple(i for i, n in enumerate(shape) if n == 1 and
                                   want.shape[i] != 1), keepdims=True)
    assert np.shape(got) == shape
    np.testing.assert_array_equal(got, want)


def test_small_unreduce_is_filled_and_large_one_stays_a_broadcast_view():
    # below the size limit the broadcast is written out (cheaper than np.broadcast_to's
    # wrapper); the values and dtype are the same either way
    from srcgrad.rules.helpers import unreduce

    small = unreduce(0.25, (150,))
    np.testing.assert_array_equal(small, np.full(150, 0.25))
    assert small.dtype == np.float64 and small.flags.writeable
    kept = np.arange(3.0, dtype=np.float32).reshape(3, 1)
    filled = unreduce(kept, (3, 4), 1, True)
    np.testing.assert_array_equal(filled, np.broadcast_to(kept, (3, 4)))
    assert filled.dtype == np.float32
    large = unreduce(0.25, (300, 300))
    assert not large.flags.writeable and large.strides == (0, 0)


def test_unbroadcast_of_leading_axes_and_stretched_axes():
    from srcgrad.rules.helpers import unbroadcast

    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(unbroadcast(g, (4,)), g.sum(axis=(0, 1)))
    np.testing.assert_array_equal(unbroadcast(g, (3, 4)), g.sum(axis=0))
    np.testing.assert_array_equal(unbroadcast(g, (3, 1)), g.sum(axis=(0, 2))[:, None])
    np.testing.assert_array_equal(unbroadcast(g, (1, 1, 4)), g.sum(axis=(0, 1), keepdims=True))
    assert unbroadcast(g, [2, 3, 4]) is g
