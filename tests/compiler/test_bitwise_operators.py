"""``&``, ``|`` and ``^`` in differentiated code (masks combined: ``(x > 0) & (x < 1)``,
and int arithmetic on shapes): NumPy's bitwise ufuncs, which are the logical ones on
booleans and keep integer semantics on ints. They were refused as "the operator BitAnd".
Checked against central finite differences in reverse, forward and second order.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([0.3, -1.2, 0.8, 2.0, -0.4, 1.7])


def masks_combined(x):
    inside = (x > 0) & (x < 1)
    outside = (x > 1.5) ^ (x < -1)
    return np.sum(np.where(inside | outside, x ** 2, np.sin(x)))


def int_bits_of_a_shape(x, n):
    k = x.shape[0] & 6  # 6 & 6: the ints' bits, not a truth value
    return np.sum(x ** 3) * (n | 1) * (k ^ 1)


@pytest.mark.parametrize("fn,rest", [(masks_combined, ()), (int_bits_of_a_shape, (2,))])
def test_bitwise_operators_differentiate_in_every_mode(fn, rest):
    sg.clear_cache()
    args = (X, *rest)
    want = numeric_gradient(fn, list(args), {}, 0)
    assert np.any(want != 0)
    assert_close(sg.grad(fn)(*args), want, rtol=1e-5)
    u = np.linspace(-1.0, 1.0, X.size)
    _, d = sg.jvp(fn)(*args, u)
    assert_close(d, directional_derivative(fn, list(args), {0: u}), rtol=1e-5)
    assert_close(sg.hessian(fn)(*args), numeric_hessian(sg.grad(fn), list(args)),
                 rtol=1e-4, atol=1e-5)


def bitwise_of_a_float(x):
    return np.sum(x) | 1  # <- error


def test_a_bitwise_operator_on_floats_is_refused_as_python_would_not_differentiated_to_zero():
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(bitwise_of_a_float)(X)
    line = bitwise_of_a_float.__code__.co_firstlineno + 1
    assert f"test_bitwise_operators.py:{line}:" in str(info.value)
    assert "|" in str(info.value) and info.value.advice
