"""Small int constants meeting a NumPy float array in ``+ - * /`` are written as floats
(``passes/fold.py``): ``1.0 - out * out`` for ``tanh``'s derivative, ``2.0 * m`` for
``m ** 2``'s, because NumPy converts a Python int to the array's dtype more slowly than a
float, to the same number (NEP 50: either takes the array's dtype). The numbers are the
unoptimised code's bit for bit (float16 to float64, 0-d arrays, infinities and NaN); an
int array keeps its int arithmetic (``k * 2`` wraps as the user's code does)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg


def tanh_square(x):
    return np.sum(np.tanh(x) * np.maximum(x, 0.1) ** 2)


def with_int_array(x, k):
    return np.sum(x * (k * 2) - 3 * x)


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def test_derivative_ints_meeting_float_arrays_are_written_as_floats():
    code = _code(sg.source(sg.grad(tanh_square), np.linspace(-1.0, 1.0, 5)))
    assert "1.0 - " in code and "2.0 * " in code, code
    assert "1 - " not in code and "(2 * " not in code, code


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_numbers_are_the_unoptimised_codes(dtype):
    with np.errstate(all="ignore"):
        for x in (np.array([-2.0, -0.0, 0.0, 0.1, 0.5, 3.0, np.inf, -np.inf, np.nan], dtype),
                  np.array(0.7, dtype)):
            got = sg.grad(tanh_square)(x)
            want = sg.grad(tanh_square, optimize=False)(x)
            assert got.dtype == want.dtype == dtype and got.shape == x.shape
            np.testing.assert_array_equal(got, want)


def test_an_int_array_keeps_its_int_arithmetic():
    x = np.linspace(-1.0, 1.0, 3)
    k = np.array([1, 2 ** 62, -3])  # 2 ** 62 * 2 wraps in int64, as the user's code does
    code = _code(sg.source(sg.grad(with_int_array), x, k))
    assert "k * 2" in code, code
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(sg.grad(with_int_array)(x, k), k * 2 - 3.0)
