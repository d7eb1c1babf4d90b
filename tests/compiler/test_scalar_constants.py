"""Constants and types in scalar derivative code (``passes/fold.py``): an int factor that
meets a Python float is written as a float (``2.0 * y``, not a conversion per trip), a
tangent that starts at zero is the literal ``0.0`` (not a ``zeros_of`` call per call), and
arithmetic on Python floats is typed a float, so a loop's tangent is computed straight
into its name after the value's last read (``passes/sink.py`` moves only numbers). Every
derivative is checked against central finite differences in reverse, forward and second
order."""

import math
import re

import pytest

import srcgrad as sg
from tests.compiler.loop_programs import (
    assert_scalar_derivatives_in_every_mode,
)


def squares(x, steps):
    y = 0.0
    for _ in range(steps):
        y = x - 0.3 * y ** 2
    return y


def heron(x, steps):
    y = 1.0
    for _ in range(steps):
        y = (y + x / y) / 2.0
    return y


def lambert(a):
    w = 1.0
    for _ in range(8):
        e = math.exp(w)
        w = w - (w * e - a) / (e * (w + 1.0))
    return w




@pytest.mark.parametrize("fn, args", [(squares, (0.9, 30)), (heron, (2.0, 12)),
                                      (lambert, (3.0,))])
def test_scalar_loops_with_folded_constants_differentiate(fn, args):
    assert_scalar_derivatives_in_every_mode(fn, args)


def test_an_int_factor_meeting_a_float_is_written_as_a_float():
    text = sg.source(sg.grad(squares), 0.9, 30)
    # (2 * 0.3 gathered into one float constant: passes/tangent_algebra.py)
    assert "0.6 * dy * y" in text and "2 * y" not in text, text
    got = sg.grad(squares)(0.9, 30)
    assert type(got) is float


def test_a_tangent_that_starts_at_zero_is_the_literal_zero():
    for fn, args in ((squares, (0.9, 30)), (heron, (2.0, 12)), (lambert, (3.0,))):
        text = sg.source(sg.grad(fn), *args)
        assert "zeros_of" not in text, text


def test_a_loops_tangent_is_computed_into_its_own_name():
    text = sg.source(sg.grad(heron), 2.0, 12)
    loop = text[text.index("    for "):]
    # the tangent's statement comes before y is overwritten: no copy `y_1 = ...; y = y_1`
    # (``/ 2.0`` is ``* 0.5``, the same number: passes/tangent_algebra.py)
    assert re.search(r"\n +dy = .*\n +y = \(y \+ _t\d+\) \* 0\.5\n", loop), text
    assert "y_1" not in text, text
