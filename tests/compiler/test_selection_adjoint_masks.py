"""A selection's adjoint as a selection of bits on large arrays (issue 16, ``rules/masks.py``).

``np.where``'s, ``np.clip``'s and ``np.maximum``'s adjoints pass the cotangent where a
mask holds. ``kept``/``dropped`` and-ed the cotangent's bits with the mask on large float
arrays (NumPy's ``where`` branches per element, ten to twenty times slower on a random
mask), so the numbers are always ``np.where``'s: an infinite cotangent still gives 0 where
the mask is false. Checked against ``np.where`` directly, and through relu written three
ways on a batch larger than the bits threshold,
against central differences in reverse and forward mode and at second order."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg
from srcgrad.rules.masks import BITS_FROM, BITS_FROM_WIDE, dropped, kept
from srcgrad.rules.ties import larger_picks, taken

rng = np.random.default_rng(1616)


@pytest.mark.parametrize("size", [7, BITS_FROM + 5, BITS_FROM_WIDE + 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kept_and_dropped_are_np_where_with_infinite_and_nan_cotangents(size, dtype):
    mask = rng.standard_normal(size) > 0
    g = rng.standard_normal(size).astype(dtype)
    for special in (None, np.inf, -np.inf, np.nan):
        if special is not None:  # one where the mask holds, one where it does not
            g[np.flatnonzero(mask)[0]] = special
            g[np.flatnonzero(~mask)[0]] = special
        for got, want in ((kept(g, mask), np.where(mask, g, 0)),
                          (kept(g[::-1], mask), np.where(mask, g[::-1], 0)),
                          (dropped(g, mask), np.where(mask, 0, g)),
                          (taken(g, mask), np.where(mask, g, 0))):
            assert got.dtype == want.dtype == dtype
            np.testing.assert_array_equal(got, want)


def test_kept_of_float32_cotangents_whose_squares_overflow_and_of_complex_ones():
    mask = rng.standard_normal(BITS_FROM + 5) > 0
    g = (rng.standard_normal(mask.size) * 1e30).astype(np.float32)
    np.testing.assert_array_equal(kept(g, mask), np.where(mask, g, 0))
    z = g.astype(np.complex64) * (1 + 2j)
    z[0] = np.inf
    np.testing.assert_array_equal(kept(z, mask), np.where(mask, z, 0))
    np.testing.assert_array_equal(dropped(z, mask), np.where(mask, 0, z))


def test_kept_with_a_truthy_non_boolean_condition_selects_and_does_not_scale():
    condition = np.array([0.0, 2.0, -3.0] * (BITS_FROM // 3 + 1))
    g = rng.standard_normal(condition.size)
    np.testing.assert_array_equal(kept(g, condition), np.where(condition, g, 0))
    np.testing.assert_array_equal(dropped(g, condition), np.where(condition, 0, g))


def test_kept_broadcasts_a_smaller_cotangent_against_a_large_mask():
    mask = rng.standard_normal((BITS_FROM // 8, 9)) > 0
    g = rng.standard_normal(9)
    np.testing.assert_array_equal(kept(g, mask), np.where(mask, g, 0))
    np.testing.assert_array_equal(kept(2.5, mask), np.where(mask, 2.5, 0))


W = rng.standard_normal(BITS_FROM_WIDE + 100)  # (float64: the bits path)


def relu_by_where(x):
    return np.sum(np.where(x > 0, x, 0.0) ** 2 * W) + np.sum(np.where(x < 0.5, 0.0, x) * W)


def relu_by_maximum(x):
    return np.sum(np.maximum(x, 0.0) ** 2 * W)


def relu_by_clip(x):
    return np.sum(np.clip(x, 0.0, 1.0) ** 2 * W)


@pytest.mark.parametrize("fn", [relu_by_where, relu_by_maximum, relu_by_clip])
def test_relu_of_a_large_batch_differentiates_in_every_mode(fn):
    x = rng.standard_normal(W.size)
    x[np.abs(x) < 1e-3] = 0.3  # no input within a difference step of a kink
    x[np.abs(x - 0.5) < 1e-3] = 0.7
    x[np.abs(x - 1.0) < 1e-3] = 0.7
    want = numeric_gradient(fn, [x], {}, 0)
    assert np.count_nonzero(want) > BITS_FROM_WIDE // 4
    assert_close(sg.grad(fn)(x), want, rtol=1e-5, atol=1e-6, what="reverse")
    u = rng.standard_normal(x.size)
    _, tangent = sg.jvp(fn)(x, u)
    assert_close(tangent, float(want @ u), rtol=1e-5, atol=1e-6, what="forward")
    grad = sg.grad(fn)
    hvp = directional_derivative(grad, [x], {0: u}, eps=1e-5)
    assert_close(sg.jvp(grad)(x, u)[1], hvp, rtol=1e-4, atol=1e-5, what="forward over reverse")


def test_larger_picks_still_shares_a_tie_on_a_large_batch():
    x = rng.standard_normal(BITS_FROM + 1)
    x[3] = 0.0
    g = np.ones_like(x)
    got = taken(g, larger_picks(x, 0.0))
    assert got[3] == 0.5
    np.testing.assert_array_equal(np.delete(got, 3), np.delete(x > 0, 3))
