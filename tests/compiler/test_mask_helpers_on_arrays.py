"""The mask helpers' versions for known ndarrays (issue 16, W2-like chains): where the
compiler knows a selection adjoint's cotangent is a float ndarray, emitted code calls
``kept_array``/``dropped_array``/``taken_array``/``larger_picks_array`` (the rule's
``on_arrays``) instead of the dispatching helpers, whose wrappers and type tests cost half
of ``np.where`` itself on a few elements. Each gives the generic helper's numbers bit for
bit (infinite and NaN cotangents, ties, float32, empty and broadcast masks, both sides of
the size where bits pay); the emitted code uses them only where the types allow."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules.masks import (
    BITS_FROM,
    BITS_FROM_WIDE,
    dropped,
    dropped_array,
    kept,
    kept_array,
)
from srcgrad.rules.ties import larger_picks, larger_picks_array, taken, taken_array
from tests.fd import assert_close, numeric_gradient

rng = np.random.default_rng(1617)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # (-0.0 kept)


@pytest.mark.parametrize("size", [0, 1, 4, 64, BITS_FROM + 3, BITS_FROM_WIDE + 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_versions_give_the_generic_helpers_numbers(size, dtype):
    x = rng.standard_normal(size).astype(dtype)
    g = rng.standard_normal(size).astype(dtype)
    if size:
        x[0] = 0.25  # a tie with y below
        g[-1] = -0.0
    mask = x > 0
    for special in (None, np.inf, -np.inf, np.nan):
        if special is not None and size > 2:  # where the mask holds and where it does not
            g[np.flatnonzero(mask)[:1]] = special
            g[np.flatnonzero(~mask)[:1]] = special
        _same(kept_array(g, mask), kept(g, mask))
        _same(dropped_array(g, mask), dropped(g, mask))
        _same(taken_array(g, mask), taken(g, mask))
        for y in (0.25, 0.0, np.float32(0.25), x[::-1].copy()):
            w = larger_picks_array(x, y)
            _same(w, larger_picks(x, y))
            _same(taken_array(g, w), taken(g, w))  # (weights 1 / 0.5 / 0 on a tie)


def test_array_versions_broadcast_a_mask_and_a_cotangent_as_the_helpers_do():
    g = rng.standard_normal((3, 5))
    for mask in (rng.standard_normal(5) > 0, rng.standard_normal((3, 1)) > 0):
        _same(kept_array(g, mask), kept(g, mask))
        _same(dropped_array(g, mask), dropped(g, mask))
    row = rng.standard_normal(5)
    big = rng.standard_normal((BITS_FROM, 5)) > 0
    _same(kept_array(row, big), kept(row, big))
    _same(larger_picks_array(row, row[:, None]), larger_picks(row, row[:, None]))


def test_a_truthy_non_boolean_mask_selects_and_does_not_scale():
    g = rng.standard_normal(BITS_FROM + 1)
    mask = np.where(rng.standard_normal(g.size) > 0, 2.5, 0.0)
    _same(kept_array(g, mask), kept(g, mask))
    _same(dropped_array(g, mask), dropped(g, mask))
    _same(taken_array(g, mask), taken(g, mask))


def gate(x, y):
    k = np.maximum(x - y, 0.0) + 0.1
    v = np.where(y > 0.0, x / k, x * y)
    return np.sum(np.clip(v, -0.5, 2.0) * k)


def _point(dtype=np.float64):
    return (np.linspace(-1.0, 1.0, 7).astype(dtype),
            np.cos(np.arange(7.0)).astype(dtype) * 0.8)


def test_typed_arrays_call_the_array_versions_and_other_types_the_helpers():
    x, y = _point()
    text = sg.source(sg.grad(gate, wrt=(0, 1)), x, y)
    for name in ("kept_array(", "dropped_array(", "taken_array(", "larger_picks_array("):
        assert name in text, text
    for name in ("kept(", "dropped(", "taken(", "larger_picks("):
        assert f" {name}" not in text and f"({name}" not in text, text
    # a Python float: the dispatching helpers (no ndarray attributes to read)
    text = sg.source(sg.grad(gate, wrt=(0, 1)), 0.3, -0.2)
    assert "_array(" not in text, text


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_gate_through_the_array_versions_differentiates(dtype):
    x, y = _point(dtype)
    got = sg.grad(gate, wrt=(0, 1))(x, y)
    plain = sg.grad(gate, wrt=(0, 1), optimize=False)(x, y)
    for g, p in zip(got, plain):
        assert g.dtype == dtype
        assert_close(g, p, rtol=1e-6, atol=1e-6)
    if dtype is np.float64:
        for i in (0, 1):
            assert_close(got[i], numeric_gradient(gate, (x, y), {}, i), rtol=1e-6, atol=1e-6)
    # an infinite cotangent where np.where did not take the branch gives 0, not NaN
    df = sg.grad(masked)
    a = np.array([1.0, -1.0, 0.5], dtype)
    assert "kept_array(" in sg.source(df, a, a)
    for seed in (np.inf, np.nan):
        _same(df(a, np.full(3, seed, dtype)), np.array([seed, 0.0, seed], dtype))


def masked(a, w):
    return np.sum(np.where(a > 0.0, a, 0.0) * w)
