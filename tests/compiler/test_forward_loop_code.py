"""What forward mode's loops cost per trip: a loop carries only the tangents something
reads (``ad/prune.py`` after the forward transform), and a tangent read once is written
nested in its reader's expression like the value's own arithmetic (``backend/nesting.py``).
Every value is checked against ``optimize=False`` and central finite differences, in
reverse, forward and second order."""

import math
import re

import pytest

import srcgrad as sg
from tests.compiler.loop_programs import newton
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def two_floats(a, b):
    y, z = a, b
    for _ in range(6):
        y, z = y * b + math.sin(z), z * 0.5 + math.cos(y) * a
    return y + z


def _loops(fn, args, make=sg.grad):
    ir = make(fn).__srcgrad__.entry_for(list(args)).ir
    return [op for op in ir.body.walk() if op.prim in ("while", "for_range")]


@pytest.mark.parametrize("make", [sg.grad, sg.jvp], ids=["grad", "jvp"])
def test_a_forward_mode_loop_carries_only_the_values_and_tangents_read_later(make):
    args = (5.0,) if make is sg.grad else (5.0, 1.0)
    (loop,) = _loops(newton, args, make)
    # steps, x and delta (the test reads them) and x's tangent; not fx, dfx, nor the
    # tangents of delta, fx and dfx, which each trip computes afresh
    assert len(loop.args["init"]) == 4, loop.args["init"]


@pytest.mark.parametrize("fn, args", [(newton, (5.0,)), (newton, (0.8,)),
                                      (two_floats, (0.3, 0.7))])
def test_forward_mode_loops_differentiate(fn, args):
    for i in range(len(args)):
        want = numeric_gradient(fn, args, {}, i)
        assert_close(sg.grad(fn, wrt=i)(*args), want)
        assert_close(sg.grad(fn, wrt=i)(*args), sg.grad(fn, wrt=i, optimize=False)(*args),
                     rtol=1e-13, atol=1e-13)
        assert_close(sg.vjp(fn, wrt=i)(*args, 1.0), want)
        assert_close(sg.jvp(fn, wrt=i)(*args, 1.0)[1], want)
    second = sg.grad(sg.grad(fn))(*args)
    assert_close(second, numeric_hessian(sg.grad(fn), args), rtol=1e-5, atol=1e-5)


def test_a_tangent_read_once_is_nested_in_its_readers_expression():
    text = sg.source(sg.grad(newton), 5.0)
    loop = text[text.index("    while "):]
    # the tangent of `fx`: dx + (x + a dx) sin(ax), one statement (not a temporary each)
    assert re.search(r" = _t\d+ \+ _t\d+ \* _t\d+\n", loop), text


def sine_power(x):
    y = 1.0
    for _ in range(3):
        y = y * math.sin(x) + x
    return y


def test_nesting_a_tangent_never_makes_a_loop_slot_take_a_copy():
    """The tangent reads the old ``y``; nested later (past the statement computing the new
    ``y`` straight into its slot) it would need the new value kept as ``y_1 = ...; y = y_1``."""
    text = sg.source(sg.grad(sine_power), 0.7)
    assert not re.search(r"\n +y = y_\d+\n", text), text
    assert re.search(r"\n +y = y \* \w+ \+ x\n", text), text
    for x in (0.7, -1.2):
        assert_close(sg.grad(sine_power)(x), numeric_gradient(sine_power, (x,), {}, 0))
        assert_close(sg.jvp(sine_power)(x, 1.0)[1], numeric_gradient(sine_power, (x,), {}, 0))
        assert_close(sg.grad(sg.grad(sine_power))(x),
                     numeric_hessian(sg.grad(sine_power), (x,)), rtol=1e-5, atol=1e-5)
