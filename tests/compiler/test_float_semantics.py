"""The emitted code keeps the semantics of what the user wrote on Python floats.

The backend prints fast Python spellings (``math.sqrt``, ``a / b``) for Python floats; where
the user wrote ``np.*``, and in all the derivative code srcgrad adds, the result must still
be NumPy's (inf/nan at a domain edge, never ``ZeroDivisionError`` or ``math domain error``)
and a gradient of a float stays a Python float. Where the user wrote ``math.*`` or an
operator, their own exception is kept. References: NumPy itself at the edges (the
derivative there is a limit finite differences cannot reach), central differences inside.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from fd import numeric_gradient

import srcgrad as sg

INF = math.inf


def np_sqrt(x):
    return np.sqrt(x)


def np_arcsin(x):
    return np.arcsin(x)


def np_arccos(x):
    return np.arccos(x)


def np_power_zero(x):
    return np.power(x, 0.0)


def math_sqrt(x):
    return math.sqrt(x)


def np_log(x):
    return np.log(x)


def np_exp(x):
    return np.exp(x)


def np_sqrt_fractional_power(x):
    return np.power(x, 0.5)


def user_division(x):
    return 1.0 / x


def user_math_sqrt_of_negative(x):
    return math.sqrt(x - 10.0)


def np_divide_by_x(x):
    return np.divide(1.0, x)


def mixed_chain(x):
    y = math.sin(x) * x
    z = np.sqrt(y * y + 1.0) / (x + 2.0)
    return np.log(z + 3.0) + math.exp(-x) + np.arctan(z) ** 2.0


def _quiet(call, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return call(*args)


def _all_modes(f, x):
    """(reverse gradient, forward tangent, second derivative) of ``f`` at float ``x``."""
    sg.clear_cache()
    g = _quiet(sg.grad(f), x)
    _, t = _quiet(sg.jvp(f), x, 1.0)
    gg = _quiet(sg.grad(sg.grad(f)), x)
    return g, t, gg


@pytest.mark.parametrize("f, x, want", [
    (np_sqrt, 0.0, INF),
    (np_arcsin, 1.0, INF),
    (np_arcsin, -1.0, INF),
    (np_arccos, 1.0, -INF),
    (math_sqrt, 0.0, INF),
    (np_log, 0.0, INF),
    (np_power_zero, 0.0, 0.0),
    (np_divide_by_x, 0.0, -INF),
], ids=lambda v: getattr(v, "__name__", repr(v)))
def test_derivative_at_domain_edge_of_python_float_is_numpys_inf_not_an_exception(f, x, want):
    # NumPy's own derivative formula at the edge: 1 / (2 sqrt(0)) = inf, 1 / sqrt(1 - 1) ...
    g, t, _ = _all_modes(f, x)
    assert g == want and type(g) is float
    assert float(t) == want


@pytest.mark.parametrize("f, x", [(np_sqrt, 0.0), (np_arcsin, 1.0), (np_divide_by_x, 0.0)],
                         ids=lambda v: getattr(v, "__name__", repr(v)))
def test_forward_tangent_at_domain_edge_of_python_float_stays_a_python_float(f, x):
    # the tangent's type is unknown when compiling; the fallback converts at run time
    _, t = _quiet(sg.jvp(f), x, 1.0)
    assert type(t) is float and math.isinf(t)


def test_second_derivative_at_domain_edge_is_numpys_value_not_an_exception():
    # d2/dx2 sqrt(x) = -1/4 x^(-3/2): -inf at 0
    assert _all_modes(np_sqrt, 0.0)[2] == -INF
    assert _all_modes(math_sqrt, 0.0)[2] == -INF


def test_x_to_the_zero_has_zero_first_and_second_derivative_at_zero_on_python_floats():
    assert _all_modes(np_power_zero, 0.0) == (0.0, 0.0, 0.0)


def test_np_sqrt_of_negative_python_float_is_nan_as_numpy():
    value, g = _quiet(sg.value_and_grad(np_sqrt), -4.0)
    assert math.isnan(value) and math.isnan(g) and type(g) is float


def test_np_power_of_negative_base_with_fractional_exponent_is_nan_not_complex():
    # Python's (-4.0) ** 0.5 is a complex number; NumPy's is nan
    value, g = _quiet(sg.value_and_grad(np_sqrt_fractional_power), -4.0)
    assert math.isnan(value) and math.isnan(g)
    assert type(g) is float


def test_np_exp_overflow_on_python_float_gives_inf_not_overflow_error():
    value, g = _quiet(sg.value_and_grad(np_exp), 1000.0)
    assert value == INF and g == INF


def test_user_operator_on_python_float_keeps_python_division_error():
    # (sg.grad alone drops the unused primal value, so value_and_grad shows the division)
    with pytest.raises(ZeroDivisionError):
        sg.value_and_grad(user_division)(0.0)


def test_user_math_call_on_python_float_keeps_math_domain_error():
    with pytest.raises(ValueError, match="math domain error"):
        sg.grad(user_math_sqrt_of_negative)(1.0)


@pytest.mark.parametrize("x", [0.3, 1.7, -0.9])
def test_mixed_math_and_numpy_float_code_differentiates_in_both_modes_and_second_order(x):
    sg.clear_cache()
    want = float(numeric_gradient(mixed_chain, [x], {}, 0))
    g = sg.grad(mixed_chain)(x)
    _, t = sg.jvp(mixed_chain)(x, 1.0)
    assert type(g) is float
    np.testing.assert_allclose([g, t], [want, want], rtol=1e-6, atol=1e-8)
    want2 = float(numeric_gradient(sg.grad(mixed_chain), [x], {}, 0))
    np.testing.assert_allclose(sg.grad(sg.grad(mixed_chain))(x), want2, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sg.hessian(mixed_chain)(x), want2, rtol=1e-5, atol=1e-7)


def scalar_loop_math(x):
    y = x
    for _ in range(5):
        y = y * x + math.sin(y)
    return y


def newton_step_math(a):
    x = 1.0
    for _ in range(3):
        x = x - (x - math.cos(a * x)) / (1.0 + a * math.sin(a * x))
    return x


@pytest.mark.parametrize("f, x", [(scalar_loop_math, 0.5), (newton_step_math, 2.0)])
def test_derivative_of_users_math_calls_and_operators_keeps_the_fast_unguarded_spelling(f, x):
    # math.sin/cos succeeded on x, x / y on y != 0: their derivatives (cos, g / y, ...)
    # cannot raise there, so no NumPy fallback is emitted (Rule.safe_python_derivative)
    text = sg.source(sg.grad(f), x)
    assert "math.cos(" in text and "try:" not in text and "np." not in text
    want = float(numeric_gradient(f, [x], {}, 0))
    np.testing.assert_allclose(sg.grad(f)(x), want, rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(f)(x, 1.0)[1], want, rtol=1e-6)


def quotient(x, y):
    return x / y


def test_derivative_of_division_by_a_tiny_python_float_is_inf_not_zero_division():
    # d/dy x / y = -x / y**2: y * y underflows to 0.0 although y != 0
    _, dy = sg.grad(quotient, wrt=(0, 1))(1.0, 1e-170)
    assert dy == -INF and type(dy) is float
    assert _quiet(sg.jvp(quotient, wrt=1), 1.0, 1e-170, 1.0)[1] == -INF


def user_math_pow(x):
    return math.pow(x, 0.5)


def test_user_math_pow_keeps_math_pow_semantics_not_the_complex_power_operator():
    assert "math.pow(x, 0.5)" in sg.source(sg.value_and_grad(user_math_pow), 4.0)
    with pytest.raises(ValueError, match="math domain error"):
        sg.value_and_grad(user_math_pow)(-4.0)  # ** would give a complex number
    np.testing.assert_allclose(sg.grad(user_math_pow)(4.0), 0.25)
