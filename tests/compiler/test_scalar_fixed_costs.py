"""The fixed costs of a gradient of one float (issue 16, W4-like Newton loops of ~1 us).

- A Python float argument whose gradient is known to be a Python float returns it as is:
  no ``like(d, x)`` call (``passes/shapes.py``); every other argument kind keeps ``like``,
  whose cast gives the gradient the argument's type.
- ``t + -1.0`` is printed ``t - 1.0`` (``backend/expressions.py``): the same IEEE number.
"""

import math

import numpy as np
import pytest
from fd import numeric_gradient

import srcgrad as sg
from tests.compiler.test_native_breaks import cube_root, newton_log

C64 = np.float64(2.5)
C32 = np.float32(1.5)


def times_two(a):
    return a * 2.0


def times_int_two(a):
    return a * 2


def numpy_sine(a):
    return np.sin(a) * a


def captured_float64(a):
    return a * C64


def captured_float32(a):
    return a * C32


def constant(a):
    return 3


def through_an_array(a):
    return np.sum(np.array([a, 2.0 * a]))


def mixed(a):
    return math.exp(a) + np.float64(1.0) * a


FUNCTIONS = [times_two, times_int_two, numpy_sine, captured_float64, captured_float32,
             constant, through_an_array, mixed, newton_log, cube_root]
KINDS = [float, np.float64, np.float32, np.array]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_the_gradient_has_the_arguments_type(fn, kind):
    a = kind(3.0)
    got = sg.grad(fn)(a)
    assert type(got) is type(a)
    if isinstance(a, np.ndarray):
        assert got.shape == a.shape and got.dtype == a.dtype
    want = sg.grad(fn, optimize=False)(a)
    assert type(want) is type(a)
    np.testing.assert_allclose(np.float64(got), np.float64(want), rtol=1e-6)


@pytest.mark.parametrize("fn", [times_two, times_int_two, numpy_sine, newton_log, cube_root],
                         ids=lambda f: f.__name__)
def test_a_float_gradient_of_a_float_is_returned_as_is(fn):
    text = sg.source(sg.grad(fn), 3.0)
    assert "like(" not in text, text
    assert "like(" in sg.source(sg.grad(fn), np.float32(3.0))


def test_a_tangent_of_unknown_kind_keeps_its_cast():
    # the tangent of a captured float64 scalar is a NumPy scalar: cast back to float
    assert "like(" in sg.source(sg.grad(captured_float64), 3.0)
    assert type(sg.grad(captured_float64)(3.0)) is float


def test_adding_a_negative_literal_is_printed_as_a_subtraction():
    text = sg.source(sg.grad(newton_log), 3.0)
    assert "de - 1.0" in text and "+ -" not in text, text


def plus_minus_zero(a):
    return (a + -0.0) * (a - -1.5) + (a * a - -0.0)


@pytest.mark.parametrize("a", [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan])
def test_a_flipped_sign_keeps_the_users_values_bit_for_bit(a):
    text = sg.source(sg.jvp(plus_minus_zero), a, 1.0)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "+ -" not in code and "- -" not in code and "a - 0.0" in code, text
    value, tangent = sg.jvp(plus_minus_zero)(a, 1.0)
    assert repr(value) == repr(plus_minus_zero(a))
    vg = sg.value_and_grad(plus_minus_zero)(a)
    assert repr(vg[0]) == repr(plus_minus_zero(a))
    assert repr(vg[1]) == repr(tangent) or (math.isnan(vg[1]) and math.isnan(tangent))


# --- the one version written inside the dispatcher (compiler/inline_version.py) ---------

def log_of(a):
    return math.log(a) * a


def test_one_version_runs_inside_the_function_users_call():
    import inspect
    g = sg.grad(log_of)
    assert g(2.0) == math.log(2.0) + 1.0
    text = inspect.getsource(g)
    assert "_sg_v0(" not in text and "math.log(a)" in text, text
    assert "    if type(a) is float and _sg_g0_0.math is _sg_o0_0:" in text, text
    # a second version: both called through the guards, each right for its kind
    assert type(g(np.float32(2.0))) is np.float32
    text = inspect.getsource(g)
    assert "_sg_v0(" in text and "_sg_v1(" in text, text
    assert g(2.0) == math.log(2.0) + 1.0 and type(g(2.0)) is float


def long_chain(a, b):
    c = np.sin(a) * b
    d = np.cos(c) + a
    e = np.tanh(d * c)
    f = np.exp(-e * e) + b
    return np.sum(f * np.log1p(c * c) + d / (1.0 + e * e))


def test_a_long_body_is_called_not_written_in():
    # compiling a long body twice (its module, then inside the dispatcher) costs more per
    # new version than the call it saves
    import inspect

    from srcgrad.compiler.inline_version import MAX_INLINED_LINES
    a, b = np.linspace(0.1, 1.0, 5), np.linspace(-1.0, 1.0, 5)
    g = sg.grad(long_chain, wrt=(0, 1))
    got = g(a, b)
    body = sg.source(g, a, b).split("def grad_long_chain", 1)[1].splitlines()[1:]
    assert len([line for line in body if line.startswith("    ")]) > MAX_INLINED_LINES
    text = inspect.getsource(g)
    assert "return _sg_v0(a, b)" in text, text
    for k in (0, 1):
        np.testing.assert_allclose(got[k], numeric_gradient(long_chain, [a, b], {}, k),
                                   rtol=1e-6, atol=1e-7)


def _error_notes(g, a):
    with pytest.raises(ValueError) as info:
        g(a)
    return getattr(info.value, "__notes__", [])


def test_an_error_in_the_written_in_version_is_noted_as_before():
    g = sg.grad(log_of)
    g(2.0)
    inlined = _error_notes(g, -1.0)
    g(np.float64(2.0))  # (two versions: the call form)
    called = _error_notes(g, -1.0)
    assert inlined == called and any("math.log(a)" in n or "log_of" in n for n in inlined)


captured_scale = 2.0


def scaled(a):
    return a * captured_scale


def test_the_written_in_version_still_reads_captured_values_when_it_runs():
    global captured_scale
    g = sg.grad(scaled)
    assert g(1.0) == 2.0
    captured_scale = 3.0
    try:
        assert g(1.0) == 3.0
    finally:
        captured_scale = 2.0


def power_either_side(a, b):
    if a >= 0:
        return a ** b
    return (-a) ** b


def test_a_tangent_typed_float_but_made_by_numpy_keeps_its_cast():
    # d/db a ** b goes through np.where, a 0-d array on numbers that the types call a float:
    # not proved a Python float (passes/python_floats.py), so `like` stays and casts it
    g = sg.grad(power_either_side, wrt=1)
    assert "like(" in sg.source(g, 2.0, 1.5)
    assert type(g(2.0, 1.5)) is float and type(g(-2.0, -2.0)) is float
