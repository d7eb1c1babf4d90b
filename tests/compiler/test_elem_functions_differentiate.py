"""Issue 14's functions in user programs: ``np.fabs``, angle conversions, ``logaddexp2``,
``fmax``/``fmin``, ``cbrt``, ``nan_to_num``, ``sinc``, ``cumprod``, ``nansum``/``nanmean``,
``average``, ``median`` and ``math.erf``/``erfc``/``lgamma``/``prod``/``hypot``/``dist``.

Each program is checked against central finite differences in reverse mode, forward mode
and second order (``check_all_modes``); the NaN-handling programs put the NaNs in a
captured constant, so the differences stay finite. Refusals name the line and give advice.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes

import srcgrad as sg

# nan_to_num's program takes the log of negative entries on purpose
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")

W = np.array([[0.5, -1.0, 2.0, 0.7], [1.5, 0.25, -0.75, 1.1], [0.3, 0.9, -0.2, 2.0]])
# NaNs in constants the argument is compared with or added to (a NaN factor would make the
# product rule's 0 * NaN, in srcgrad as in PyTorch)
HOLES = np.where(np.arange(12).reshape(3, 4) % 5 == 2, np.nan, 0.0)  # NaN at 2, 7


def fabs_and_angle_conversions(x):
    return np.sum(np.fabs(x) * np.deg2rad(x) + np.radians(x) * np.rad2deg(x * W)
                  + np.degrees(x))


def logaddexp2_of_traced_pair(x):
    return np.sum(np.logaddexp2(x, W * x + 1.0))


def fmax_fmin_against_constants_with_nans(x):
    return np.sum(np.fmax(x, W + HOLES) * np.fmin(-W[::-1] + HOLES, x) ** 2)


def cbrt_away_from_zero(x):
    return np.sum(np.cbrt(x + 3.0) * W)


def nan_to_num_keeps_the_finite_entries(x):  # log of the negative entries is NaN
    return np.sum(np.nan_to_num(np.log(x), nan=0.5) * W)  # (infinities: the kink table)


def sinc_near_and_far_from_zero(x):
    return np.sum(np.sinc(x * W) ** 2)


def cumprod_flattened_and_along_axes(x):
    return np.sum(np.cumprod(x)) + np.sum(np.cumprod(x * W, axis=1) ** 2) \
        + np.sum(np.cumprod(x, axis=0) * W)


def cumprod_through_exact_zeros(x):
    return np.sum(np.cumprod(x * np.array([[1.0, 0.0, 1.0, 1.0]]), axis=1) * W)


def nansum_nanmean_skip_the_nans(x):
    y = x + HOLES  # (y * y would be NaN * 0 at the NaNs in the product rule, as in PyTorch)
    return np.nansum(y) ** 2 + np.sum(np.nanmean(y, axis=0) ** 2) \
        + np.sum(np.exp(np.nanmean(y, axis=1, keepdims=True)) * W)


def average_with_traced_weights(x):
    weights = np.exp(x[0])
    return np.sum(np.average(x * W, axis=1, weights=weights) ** 2) \
        + np.average(x, weights=W * W) + np.sum(np.average(x, axis=0))


def median_odd_even_and_keepdims(x):
    return np.median(x) * 2.0 + np.sum(np.median(x * W, axis=1) ** 2) \
        + np.sum(np.median(x, axis=0, keepdims=True) * W[:1])


def math_special_functions(x):
    return math.erf(x) * math.lgamma(x + 2.0) + math.erfc(x * x) + math.lgamma(x + 0.5) ** 2


def math_items_functions(x):
    return math.prod([x, x + 1.0, 3.0]) + math.hypot(x, 2.0 * x, 0.5) \
        + math.dist([x, 1.0, x * x], [0.0, x, 2.0]) + math.fsum([x, x * x])


ARRAY_PROGRAMS = [fabs_and_angle_conversions, logaddexp2_of_traced_pair,
                  fmax_fmin_against_constants_with_nans, cbrt_away_from_zero,
                  nan_to_num_keeps_the_finite_entries, sinc_near_and_far_from_zero,
                  cumprod_flattened_and_along_axes, cumprod_through_exact_zeros,
                  nansum_nanmean_skip_the_nans, average_with_traced_weights,
                  median_odd_even_and_keepdims]
X = np.array([[0.31, -0.72, 1.13, 0.52], [-1.24, 0.85, 0.16, -0.47], [0.93, 0.08, -0.61, 1.37]])


@pytest.mark.parametrize("fn", ARRAY_PROGRAMS, ids=lambda f: f.__name__)
def test_issue14_numpy_function_differentiates_in_every_mode(fn):
    check_all_modes(fn, X.copy())


@pytest.mark.parametrize("fn", [math_special_functions, math_items_functions],
                         ids=lambda f: f.__name__)
def test_issue14_math_function_of_a_float_differentiates_in_every_mode(fn):
    check_all_modes(fn, 0.37)


def test_sinc_at_zero_has_slope_zero_and_curvature_minus_pi_squared_over_three():
    def f(x):
        return np.sum(np.sinc(x))

    x = np.zeros(3)
    np.testing.assert_array_equal(sg.grad(f)(x), np.zeros(3))
    np.testing.assert_allclose(np.diag(sg.hessian(f)(x)), [-math.pi ** 2 / 3] * 3, rtol=1e-15)


def average_returning_the_weight_sum(x):
    avg, total = np.average(x, weights=W, returned=True)  # <- error
    return avg * total


def nan_to_num_with_a_traced_replacement(x):
    return np.sum(np.nan_to_num(x, nan=np.sum(x)))  # <- error


def nan_to_num_in_place(x):
    y = np.log(x)
    np.nan_to_num(y, copy=False)  # <- error
    return np.sum(y)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_nan_to_num_in_place_with_copy_false_is_refused_with_advice(mode):
    assert_refused(nan_to_num_in_place, X.copy(), ("copy=False",), mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_average_with_returned_true_is_refused_with_advice(mode):
    assert_refused(average_returning_the_weight_sum, X.copy(), ("returned=True",), mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_nan_to_num_with_a_traced_replacement_value_is_refused(mode):
    assert_refused(nan_to_num_with_a_traced_replacement, X.copy(), ("nan",), mode)
