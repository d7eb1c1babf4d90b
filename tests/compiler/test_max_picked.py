"""The max's and min's VJP as ``picked(g, max_picks(x, axis), axis, keepdims)``: along one
axis a one-hot mask and one ``np.where`` (the cotangent broadcasts against the mask, never
materialised at the input's shape), elsewhere the ties' shares. Checked against central
differences in reverse and forward mode and at second order, and value by value where
finite differences cannot see it (ties, NaN, an infinite cotangent)."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(16)
X = rng.standard_normal((5, 4))
W = rng.standard_normal((5, 4))


def max_rows_weighted(x):
    return np.sum(np.max(x, axis=1) * np.arange(1.0, 6.0))


def min_cols_kept_squared(x):
    return np.sum(np.min(x, axis=0, keepdims=True) ** 2)


def max_last_axis_of_3d(x):
    return np.sum(np.sin(np.max(np.reshape(x, (5, 2, 2)), axis=-1)))


def max_two_axes(x):
    return np.sum(np.max(np.reshape(x, (5, 2, 2)), axis=(0, 2)) ** 2)


def max_full(x):
    return np.max(x * W) ** 2


@pytest.mark.parametrize("fn", [max_rows_weighted, min_cols_kept_squared, max_last_axis_of_3d,
                                max_two_axes, max_full], ids=lambda f: f.__name__)
def test_max_and_min_adjoint_through_picked_matches_central_differences(fn):
    check_all_modes(fn, X)


def test_max_along_axis_with_ties_sends_the_gradient_to_the_first_maximum():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    got = sg.grad(lambda x: np.sum(np.max(x, axis=1) * np.array([2.0, 5.0])))(x)
    np.testing.assert_array_equal(got, [[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]])


def test_max_along_axis_sends_the_gradient_to_the_first_nan():
    x = np.array([[1.0, np.nan, 3.0, np.nan]])
    got = sg.grad(lambda x: np.sum(np.max(x, axis=1)))(x)
    np.testing.assert_array_equal(got, [[0.0, 1.0, 0.0, 0.0]])


def test_full_max_splits_the_gradient_among_ties():
    x = np.array([[1.0, 3.0], [3.0, 0.0]])
    got = sg.grad(lambda x: np.max(x) * 4.0)(x)
    np.testing.assert_array_equal(got, [[0.0, 2.0], [2.0, 0.0]])


def test_infinite_cotangent_of_max_along_axis_gives_zero_where_nothing_was_picked():
    # d/dm of exp(m) overflows to inf at m = 1000: the unpicked elements still get 0
    x = np.array([[1000.0, 1.0], [0.0, 2.0]])
    with np.errstate(over="ignore"):
        got = sg.grad(lambda x: np.sum(np.exp(np.max(x, axis=1))))(x)
    assert got[0, 0] == np.inf and got[0, 1] == 0.0
    np.testing.assert_allclose(got[1], [0.0, np.exp(2.0)])


def test_emitted_max_adjoint_is_one_masked_select():
    text = sg.source(sg.grad(max_rows_weighted), X)
    assert "picked(" in text and "max_picks(" in text
    assert "max_weights" not in text and "np.where" not in text


def test_max_along_axis_with_a_nan_lane_and_a_tied_lane_picks_first_in_each():
    # as many hits of x == max as lanes, but one lane NaN (no hit) and one tied (two):
    # the mask from the max's value is refused and argmax picks
    x = np.array([[np.nan, 1.0, 2.0], [3.0, 3.0, 0.0]])
    got = sg.grad(lambda x: np.sum(np.max(x, axis=1, keepdims=True) * 2.0))(x)
    np.testing.assert_array_equal(got, [[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])


def test_min_along_axis_without_ties_uses_the_value_mask_and_matches_argmin():
    x = rng.standard_normal((7, 5))
    got = sg.grad(lambda x: np.sum(np.min(x, axis=0) * np.arange(1.0, 6.0)))(x)
    want = np.zeros_like(x)
    want[np.argmin(x, axis=0), np.arange(5)] = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(got, want)


def test_max_along_axis_with_infinite_lanes_of_both_signs_picks_each_lane_maximum():
    # no NaN lane, but the lanes' maxima +inf and -inf sum to NaN (the cheap NaN check then
    # says "maybe NaN" and argmax decides): the first maximum of each lane gets the cotangent
    x = np.array([[np.inf, 1.0, 2.0], [-np.inf, -np.inf, -np.inf], [0.0, 5.0, -1.0]])
    got = sg.grad(lambda x: np.sum(np.max(x, axis=1) * np.array([1.0, 2.0, 3.0])))(x)
    # lane 1 ties (all -inf): the first gets it
    np.testing.assert_array_equal(got, [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 0.0]])


def test_max_along_axis_with_a_nan_lane_and_a_tied_lane_in_float32_picks_first_in_each():
    x = np.array([[3.0, 3.0, 0.0], [1.0, np.nan, 2.0], [0.0, 1.0, 4.0]], dtype=np.float32)
    got = sg.grad(lambda x: np.sum(np.max(x, axis=1, keepdims=True) * 2.0))(x)
    np.testing.assert_array_equal(got, [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]])
