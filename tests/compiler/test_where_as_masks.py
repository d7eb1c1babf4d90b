"""Selections against zero by bits (issue 16: ``rules/masks.py``, ``passes/selections.py``).

``kept``/``dropped`` on a large float array and-ed its bits with the mask: the result must
be ``np.where``'s bit for bit for every value (``inf``, NaN and its payload, ``-0.0``,
subnormals), every float width, byte order, layout and broadcast. A relu written
``np.where(z > 0, z, 0.0)`` is emitted as ``kept_array(z, mask)`` where ``z`` is a known
float array, so the user's own values must stay exactly ``np.where``'s, and nothing else
(a ``-0.0`` or NumPy-scalar zero, an int array, an unknown type) is rewritten."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg
from srcgrad.rules.masks import BITS_FROM, BITS_FROM_WIDE, dropped, dropped_array, kept, kept_array
from srcgrad.rules.ties import taken, taken_array

rng = np.random.default_rng(1618)
SPECIAL = [np.inf, -np.inf, np.nan, -np.nan, -0.0, 0.0, 1e-40, -1e-45]


def _bitwise_same(got: np.ndarray, want: np.ndarray) -> None:
    assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def _point(shape, dtype):
    c = rng.standard_normal(shape).astype(dtype)
    mask = rng.standard_normal(shape) > 0
    c.flat[:len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    mask.flat[:len(SPECIAL)] = [False, True] * (len(SPECIAL) // 2)
    c.flat[len(SPECIAL):2 * len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    mask.flat[len(SPECIAL):2 * len(SPECIAL)] = [True, False] * (len(SPECIAL) // 2)
    return c, mask


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.dtype(">f8")])
@pytest.mark.parametrize("shape", [(BITS_FROM + 3,), (BITS_FROM_WIDE + 5,), (70, 130)])
def test_selection_of_bits_is_np_where_bit_for_bit(dtype, shape):
    c, mask = _point(shape, dtype)
    for got, want in ((kept(c, mask), np.where(mask, c, 0)),
                      (kept_array(c, mask), np.where(mask, c, 0.0)),
                      (dropped(c, mask), np.where(mask, 0, c)),
                      (dropped_array(c, mask), np.where(mask, 0.0, c)),
                      (taken(c, mask), np.where(mask, c, 0)),
                      (taken_array(c, mask), np.where(mask, c, 0.0)),
                      (kept(c[::2], mask[::2]), np.where(mask[::2], c[::2], 0)),
                      (dropped(c.T, mask.T), np.where(mask.T, 0, c.T))):
        _bitwise_same(got, want)
    got = kept(c, mask).ravel()
    assert got[0] == 0 and got[2] == 0 and np.isnan(got[3])  # (inf, nan where false: 0)


def test_selection_of_bits_broadcasts_a_mask_or_a_cotangent():
    c, _ = _point((60, 200), np.float32)
    for mask in (rng.standard_normal(200) > 0, rng.standard_normal((60, 1)) > 0):
        _bitwise_same(kept(c, mask), np.where(mask, c, 0))
        _bitwise_same(dropped(c, mask), np.where(mask, 0, c))
    row = c[0].copy()
    big = rng.standard_normal((60, 200)) > 0
    _bitwise_same(kept(row, big), np.where(big, row, 0))
    _bitwise_same(dropped(row, big), np.where(big, 0, row))


def test_small_empty_and_zero_d_selections_are_np_where():
    for c, mask in ((np.float32(2.0) * np.ones(()), np.array(True)), (np.ones(0), np.ones(0, bool)),
                    _point((BITS_FROM - 1,), np.float32)):
        _bitwise_same(np.asarray(kept(c, mask)), np.asarray(np.where(mask, c, 0)))
        _bitwise_same(np.asarray(dropped(c, mask)), np.asarray(np.where(mask, 0, c)))


def relu_by_where(W, b, x):
    z = x @ W + b
    h = np.where(z > 0, z, 0.0)
    return np.sum(h * h) + np.sum(np.where(z < 0.5, 0, z))


def test_a_relu_by_where_is_emitted_as_kept_and_keeps_the_users_values():
    W = rng.standard_normal((6, 70)).astype(np.float32)
    b = rng.standard_normal(70).astype(np.float32)
    x = rng.standard_normal((40, 6)).astype(np.float32)
    df = sg.grad(relu_by_where, wrt=(0, 1))
    text = sg.source(df, W, b, x)
    assert "h = kept_array(z, " in text and "np.where" not in _code(text)

    z = x @ W + b
    z.flat[:len(SPECIAL)] = np.array(SPECIAL, np.float32)
    h, k = kept_array(z, z > 0), dropped_array(z, z < 0.5)
    _bitwise_same(h, np.where(z > 0, z, 0.0))
    _bitwise_same(k, np.where(z < 0.5, 0, z))
    got = df(W, b, x)
    want = numeric_gradient(relu_by_where, [W.astype(np.float64), b.astype(np.float64),
                                            x.astype(np.float64)], {}, 0)
    assert got[0].dtype == np.float32
    assert_close(got[0], want, rtol=1e-3, atol=1e-3)


def minus_zero(x):
    return np.sum(np.where(x > 0, x, -0.0) * x)


def numpy_zero(x):
    return np.sum(np.where(x > 0, x, np.float64(0.0)) * x)


def quotient_or_zero(x):
    return np.sum(np.where(x > 0, 1.0 / x, 0.0) * x)


@pytest.mark.parametrize("fn, rewritten", [(minus_zero, False), (numpy_zero, False),
                                           (quotient_or_zero, True)])
def test_only_a_plus_zero_constant_against_a_float_array_becomes_kept(fn, rewritten):
    x = rng.standard_normal(50).astype(np.float32)
    x[:3] = (-0.0, 0.0, -1.0)
    vg = sg.value_and_grad(fn)
    code = _code(sg.source(vg, x))
    assert ("np.where(" in code) is not rewritten  # (the adjoint is kept_array anyway)
    with np.errstate(divide="ignore", invalid="ignore"):  # (1.0 / 0.0 at x = 0: a kink)
        value, _ = vg(x)
        assert value == fn(x) and type(value) is type(fn(x))
    x = x[3:]  # (away from the kink for the differences)
    grad = vg(x)[1]
    assert grad.dtype == np.float32
    assert_close(grad, numeric_gradient(fn, [x.astype(np.float64)], {}, 0), rtol=1e-3,
                 atol=1e-3)


def test_an_int_array_selection_stays_np_where():
    x = rng.standard_normal(7)
    k = np.arange(-3, 4)
    assert "kept" not in sg.source(sg.value_and_grad(
        lambda x, k: np.sum(np.where(k > 0, k, 0) * x)), x, k)
