"""A doubling that cancels a halving (``passes/halves.py``): ``np.sqrt(c * c + 1)``'s
adjoint is the hand-written ``g / s * c``, not ``g / (2 * s) * c`` doubled, and ``dy += t``
twice for ``y * y`` is one ``dy += t`` of the halving's quotient without the 2. Checked
against the unoptimised code and central differences (float64, float32, 0-d arrays, a loop
body), with zeros, infinities, NaN and values whose squares overflow; where the doubled
value has no halving or the quotient is read elsewhere, nothing changes."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg


def root_of_square(x):
    c = np.log(x * x + 2.0)
    return np.sum(np.sqrt(c * c + 1.0) * x)


def root_accumulated(x, y):
    r = np.sqrt(y * y + 0.25)
    return np.sum(r * x + y * x)


def root_in_a_loop(x, n):
    total = 0.0
    for _ in range(n):
        x = np.sqrt(x * x + 0.5) * 0.9
        total = total + np.sum(x)
    return total


def doubled_without_halving(x):
    c = np.sin(x)
    return np.sum(np.exp(c * c))


def halving_read_twice(x):
    s = np.sqrt(x * x + 1.0)
    return np.sum(s) + np.sum(x / (2 * s))


def _code(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]


def test_the_square_roots_halving_cancels_the_squares_doubling():
    x = np.linspace(-2.0, 2.0, 7)
    code = _code(sg.source(sg.grad(root_of_square), x))
    assert not any("2 *" in line for line in code), code
    assert not any(line == "dc = dc + dc" for line in code), code
    assert_close(sg.grad(root_of_square)(x), numeric_gradient(root_of_square, (x,), {}, 0))
    assert_close(sg.grad(root_of_square)(x), sg.grad(root_of_square, optimize=False)(x),
                 rtol=1e-14, atol=0)


def test_an_accumulated_doubling_becomes_one_update():
    x, y = np.linspace(-1.0, 1.0, 5), np.linspace(0.5, -2.0, 5)
    text = sg.source(sg.grad(root_accumulated, wrt=(0, 1)), x, y)
    code = _code(text)
    assert not any("2 * r" in line for line in code), text
    # one update of dy from the root (and one from y * x), not two of the same value
    assert sum(line.startswith("dy +=") or line.startswith("dy = dy +") for line in code) <= 2
    got = sg.grad(root_accumulated, wrt=(0, 1))(x, y)
    plain = sg.grad(root_accumulated, wrt=(0, 1), optimize=False)(x, y)
    for i in (0, 1):
        assert_close(got[i], plain[i], rtol=1e-14, atol=1e-15)
        assert_close(got[i], numeric_gradient(root_accumulated, (x, y), {}, i))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_are_todays(dtype):
    with np.errstate(all="ignore"):
        x = np.array([0.0, -0.0, 1e-300, 1e154, 1e200, np.inf, -np.inf, np.nan, 3.0], dtype)
        for fn, args in ((root_of_square, (x,)), (root_accumulated, (x[::-1].copy(), x))):
            wrt = tuple(range(len(args)))
            got = sg.grad(fn, wrt=wrt)(*args)
            plain = sg.grad(fn, wrt=wrt, optimize=False)(*args)
            for g, p in zip(got, plain, strict=True):
                assert g.dtype == dtype
                assert np.array_equal(np.isnan(g), np.isnan(p)), (g, p)
                assert np.array_equal(np.isinf(g), np.isinf(p)), (g, p)
                finite = np.isfinite(p)
                assert_close(g[finite], p[finite], rtol=1e-5 if dtype is np.float32 else 1e-13,
                             atol=0)


def test_0d_arrays_and_a_loop_body():
    x0 = np.array(0.7)
    assert_close(sg.grad(root_of_square)(x0), numeric_gradient(root_of_square, (x0,), {}, 0))
    x = np.linspace(-1.0, 1.0, 4)
    assert_close(sg.grad(root_in_a_loop)(x, 3), numeric_gradient(root_in_a_loop, (x, 3), {}, 0))
    assert_close(sg.grad(root_in_a_loop)(x, 3), sg.grad(root_in_a_loop, optimize=False)(x, 3),
                 rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("fn", [doubled_without_halving, halving_read_twice])
def test_without_a_halving_to_cancel_the_result_is_still_right(fn):
    x = np.linspace(-1.5, 1.5, 6)
    assert_close(sg.grad(fn)(x), numeric_gradient(fn, (x,), {}, 0))
    assert_close(sg.grad(fn)(x), sg.grad(fn, optimize=False)(x), rtol=1e-13, atol=1e-15)
