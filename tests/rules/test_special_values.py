"""Values of the special-function primitives (``srcgrad/rules/special.py``) and of
``sinc_derivative`` against mpmath (arbitrary precision) and closed forms: the rules'
derivative checks compare a primitive with itself, so its values are checked here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from srcgrad.rules.elementwise_more import sinc_derivative
from srcgrad.rules.special import erf, erfc, lgamma, polygamma

mpmath = pytest.importorskip("mpmath")

POINTS = [1e-8, 1e-3, 0.3, 1.0, 2.7, 14.9, 15.0, 15.1, 100.0, 1e5, -0.4, -2.5, -7.3, -30.2]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_polygamma_matches_mpmath_to_a_few_ulps(n):
    got = polygamma(n, np.array(POINTS))
    want = np.array([float(mpmath.polygamma(n, x)) for x in POINTS])
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("n, want", [(0, [-math.inf, math.nan, math.nan]),
                                     (1, [math.inf, math.inf, math.inf]),
                                     (2, [-math.inf, math.nan, math.nan])])
def test_polygamma_at_its_poles_follows_pytorch(n, want):
    np.testing.assert_array_equal(polygamma(n, np.array([0.0, -1.0, -4.0])), want)


def test_lgamma_is_inf_at_its_poles_where_math_lgamma_raises():
    np.testing.assert_array_equal(lgamma(np.array([0.0, -3.0, 2.0])), [math.inf, math.inf, 0.0])
    with pytest.raises(ValueError):
        math.lgamma(0.0)


def test_erf_lgamma_keep_float32_and_agree_with_math():
    x32 = np.array([0.25, 1.5], dtype=np.float32)
    for fn, ref in ((erf, math.erf), (erfc, math.erfc), (lgamma, math.lgamma)):
        assert fn(x32).dtype == np.float32
        assert fn(0.7) == ref(0.7)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_sinc_derivative_matches_mpmath_on_both_branches(n):
    xs = [0.0, 1e-9, 0.3, 0.999, 1.0, 1.001, 2.5, -3.7, 12.25]
    got = sinc_derivative(np.array(xs), n)
    sinc = lambda v: mpmath.sin(mpmath.pi * v) / (mpmath.pi * v) if v != 0 else mpmath.mpf(1)
    want = [float(mpmath.diff(sinc, mpmath.mpf(x), n)) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


def test_sinc_second_derivative_at_zero_is_minus_pi_squared_over_three():
    assert sinc_derivative(np.array(0.0), 1) == 0.0
    assert sinc_derivative(np.array(0.0), 2) == pytest.approx(-math.pi ** 2 / 3, rel=1e-15)
