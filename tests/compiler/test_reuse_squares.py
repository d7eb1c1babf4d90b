"""A square the user wrote reused by derivative code (``passes/squares.py``):
``t = np.tanh(m) ** 2`` makes ``tanh``'s adjoint ``1.0 - t``, not ``1.0 - out * out``, as
by hand. ``a ** 2`` of an ndarray is ``a * a`` bit for bit, so the numbers are the
unoptimised code's (float16 to float64, infinities, NaN); 0-d arrays and Python floats,
whose ``** 2`` is not NumPy's square, keep their own product."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg


def tanh_squared(m):
    t = np.tanh(m) ** 2
    return np.sum(t * m)


def tanh_np_square(m):
    t = np.square(np.tanh(m))
    return np.sum(t * m)


def tanh_squared_in_a_loop(m):
    total = 0.0
    for _ in range(2):
        t = np.tanh(m) ** 2
        m = m * 0.5 + t
        total = total + np.sum(t)
    return total


def tanh_squared_float(m):
    t = math.tanh(m) ** 2
    return t * m


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


@pytest.mark.parametrize("fn", [tanh_squared, tanh_np_square])
def test_the_adjoint_reads_the_users_square(fn):
    m = np.linspace(-1.0, 1.0, 5)
    code = _code(sg.source(sg.grad(fn), m))
    assert "1.0 - t" in code and "_t1 * _t1" not in code, code
    assert_close(sg.grad(fn)(m), numeric_gradient(fn, (m,), {}, 0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_numbers_are_the_unoptimised_codes(dtype):
    m = np.array([-3.0, -0.0, 0.0, 1e-5, 0.5, 20.0, np.inf, -np.inf, np.nan], dtype)
    with np.errstate(all="ignore"):
        for fn in (tanh_squared, tanh_np_square):
            got, want = sg.grad(fn)(m), sg.grad(fn, optimize=False)(m)
            assert got.dtype == want.dtype == dtype
            np.testing.assert_array_equal(got, want)


def test_0d_arrays_python_floats_and_loops():
    m0 = np.array(0.4)
    code = _code(sg.source(sg.grad(tanh_squared), m0))
    assert "1.0 - t" not in code, code  # (a 0-d square may be C's pow of a NumPy scalar)
    assert_close(sg.grad(tanh_squared)(m0), numeric_gradient(tanh_squared, (m0,), {}, 0))
    assert_close(sg.grad(tanh_squared_float)(0.4),
                 numeric_gradient(tanh_squared_float, (0.4,), {}, 0))
    m = np.linspace(-1.0, 1.0, 4)
    assert_close(sg.grad(tanh_squared_in_a_loop)(m),
                 numeric_gradient(tanh_squared_in_a_loop, (m,), {}, 0))
    assert_close(sg.grad(tanh_squared_in_a_loop)(m),
                 sg.grad(tanh_squared_in_a_loop, optimize=False)(m), rtol=1e-14, atol=1e-15)


def mean_of_squares(m):
    return np.mean(np.tanh(m) ** 2)


def test_a_square_nothing_reads_is_not_revived():
    # the mean's value is not needed for its gradient: its square stays uncomputed
    m = np.linspace(-1.0, 1.0, 5)
    code = _code(sg.source(sg.grad(mean_of_squares), m))
    assert "** 2" not in code and "1.0 - _t2 * _t2" in code, code
    assert_close(sg.grad(mean_of_squares)(m), numeric_gradient(mean_of_squares, (m,), {}, 0))
