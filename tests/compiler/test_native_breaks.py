"""A ``while`` loop's ``break`` emitted as Python's ``break`` (backend/breaks.py).

The frontend carries a ``break`` as a flag; the backend writes it back as the user wrote
it where the flag's shape allows (set by one ``if``, read only by the loop's test and the
guard of the statements after it), and keeps the flag otherwise. Each program here is
checked three ways: the text (``break``, no flag), the values against central differences
in every mode (``loop_programs``), and bit for bit against the same derivative emitted
with the flag (the rewrite switched off).
"""

import math
import re

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.backend import breaks
from tests.compiler.loop_programs import assert_scalar_derivatives_in_every_mode


def newton_log(a):
    y = 1.0
    while True:
        e = math.exp(y)
        step = (e - a) / e
        y = y - step
        if abs(step) < 1e-13:
            break
    return y


def cube_root(a):
    x = a
    count = 0
    while count < 50:
        nxt = (2.0 * x + a / (x * x)) / 3.0
        if abs(nxt - x) <= 1e-14 * abs(x):
            x = nxt
            break
        x = nxt
        count += 1
    return x


def break_in_else(a):
    y = a
    n = 0
    while n < 30:
        y = 0.5 * y + 0.1 * a
        n += 1
        if y > 0.25 * a:
            pass
        else:
            break
    return y * n


def work_on_the_exit_path(a):
    y = a
    n = 0
    while n < 40:
        y = math.sin(y) + 0.5 * a
        if y > 1.2:
            z = y * y
            y = z - a
            break
        n += 1
    return y


def break_in_nested_if(a):
    y = a
    n = 0
    while n < 40:
        y = y * 0.9 + 0.05 * a
        if n > 3:
            if y < a:
                break
        n += 1
    return y + n


def two_breaks(a):
    y = a
    n = 0
    while True:
        y = y * 0.8 + 0.1 * a
        if y < 0.3 * a:
            break
        n += 1
        if n >= 25:
            break
    return y * n


def break_and_continue(a):
    y = a
    n = 0
    while n < 30:
        n += 1
        if n % 3 == 0:
            continue
        y = y * 0.9 + 0.02 * a * n
        if y < 0.4 * a:
            break
    return y


def inner_loop_breaks(a):
    total = 0.0
    for i in range(3):
        y = a + i
        k = 0
        while k < 20:
            y = 0.5 * (y + a / y)
            k += 1
            if abs(y * y - a) < 1e-12:
                break
        total = total + y * (i + 1)
    return total


def outer_while_breaks_after_inner(a):
    y = a
    m = 0
    while True:
        k = 0
        while k < 5:
            y = y * 0.95 + 0.01 * a
            k += 1
        m += 1
        if y < 0.5 * a or m > 10:
            break
    return y


def reads_values_the_body_changes(a):
    # the test reads `y`, which the body changes after the last test
    y = a
    while y > 0.1:
        y = y * 0.5
        if y < 0.3:
            y = y - 0.01
            break
    return y


def returns_inside(a):
    y = a
    n = 0
    while n < 50:
        y = y * 0.7 + 0.01
        n += 1
        if y < 0.05:
            return y * a
        if n > 20:
            break
    return y


def array_written_in_place(a):
    z = np.array([a, 2.0 * a])
    n = 0
    while n < 10:
        z = z * 0.9
        z[0] = z[0] + 0.1 * a
        n += 1
        if z.sum() < a:
            break
    return z.sum()


PROGRAMS = [
    (array_written_in_place, (1.0,)), (array_written_in_place, (-1.0,)),
    (newton_log, (3.0,)), (newton_log, (0.5,)),
    (cube_root, (3.0,)), (cube_root, (-0.7,)), (cube_root, (8.0,)),
    (break_in_else, (2.0,)), (break_in_else, (-1.0,)),
    (work_on_the_exit_path, (0.8,)), (work_on_the_exit_path, (0.1,)),
    (break_in_nested_if, (1.5,)), (two_breaks, (2.0,)), (break_and_continue, (1.0,)),
    (inner_loop_breaks, (2.0,)), (outer_while_breaks_after_inner, (1.0,)),
    (reads_values_the_body_changes, (1.0,)), (reads_values_the_body_changes, (0.05,)),
    (returns_inside, (0.5,)), (returns_inside, (3.0,)),
]


@pytest.fixture
def flags_kept(monkeypatch):
    """Emit with the frontend's flags as they are (the rewrite off)."""
    def switch(on: bool) -> None:
        sg.clear_cache()
        if on:
            monkeypatch.setattr(breaks, "native_breaks", lambda fn: fn)
        else:
            monkeypatch.undo()
    yield switch
    sg.clear_cache()


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", repr(v)))
def test_derivatives_in_every_mode(fn, args):
    assert_scalar_derivatives_in_every_mode(fn, args)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", repr(v)))
def test_bit_for_bit_the_flags_values(fn, args, flags_kept):
    def run():
        out = [sg.grad(fn)(*args), sg.jvp(fn)(*args, 1.0), sg.value_and_grad(fn)(*args),
               sg.vjp(fn)(*args, 1.0), sg.grad(sg.grad(fn))(*args)]
        return out
    native = run()
    flags_kept(True)
    kept = run()
    flags_kept(False)
    assert repr(native) == repr(kept)
    assert [type(v) for v in native] == [type(v) for v in kept]
    primal = fn(*args)
    assert native[1][0] == primal and type(native[1][0]) is type(primal)
    assert native[2][0] == primal


FLAG = re.compile(r"\b_break\d")


def _grad_text(fn, arg=3.0):
    return sg.source(sg.grad(fn), arg)


def test_while_true_with_a_break_at_its_end_reads_as_written():
    text = _grad_text(newton_log)
    assert not FLAG.search(text), text
    assert "    while True:\n" in text, text
    assert "        if abs(step) < 1e-13:\n            break\n" in text, text


def test_a_break_after_an_assignment_leaves_with_the_assigned_values():
    text = _grad_text(cube_root)
    assert not FLAG.search(text) and "x_1" not in text, text
    assert "    while count < 50:\n" in text, text
    # the tangent goes straight into its slot before the test; the value leaves with `x`
    assert "            x = nxt\n            break\n" in text, text
    assert "        count = count + 1\n        x = nxt\n" in text, text


def test_a_break_in_the_else_branch_tests_the_negation():
    text = _grad_text(break_in_else, 2.0)
    assert not FLAG.search(text), text
    assert re.search(r"\n( +)if not \(y > \w+\):\n\1    break\n", text), text


def test_work_on_the_exit_path_runs_before_the_break():
    text = _grad_text(work_on_the_exit_path, 0.8)
    assert not FLAG.search(text), text
    assert text.index("z = y * y") < text.index("break"), text


@pytest.mark.parametrize("fn", [break_in_nested_if, two_breaks, break_and_continue,
                                returns_inside])
def test_other_shapes_keep_the_flag(fn):
    # (a break inside a nested `if`, a second break, a `continue`, a `return`: the flag
    # stays, exact as before)
    assert FLAG.search(_grad_text(fn, 1.0)) or "_return" in _grad_text(fn, 1.0)


def test_inner_and_outer_loops_each_break_on_their_own():
    text = _grad_text(inner_loop_breaks, 2.0)
    assert not FLAG.search(text) and len(re.findall(r"\bbreak\n", text)) == 1, text
    text = _grad_text(outer_while_breaks_after_inner, 1.0)
    assert not FLAG.search(text) and "while True:" in text, text


def test_reverse_mode_pushes_a_trip_before_the_test_that_may_leave():
    text = sg.source(sg.vjp(newton_log), 3.0, 1.0)
    assert not FLAG.search(text) and "    while True:\n" in text, text
    # the trip's numbers are pushed as soon as they are made, the test then breaks
    assert text.index("tape.append((e, step))") < text.index("y = y - step"), text
    assert "        if abs(step) < 1e-13:\n            break\n" in text, text
    # (cube_root's reverse sweep tapes which way the flag went: it keeps the flag)
    assert FLAG.search(sg.source(sg.vjp(cube_root), 3.0, 1.0))


def test_an_array_pushed_on_the_tape_keeps_its_place():
    # an array may be written in place after a push moved earlier: only numbers move
    text = sg.source(sg.vjp(array_written_in_place), 1.0, 1.0)
    assert FLAG.search(text), text


@pytest.mark.parametrize("a", [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-300, 1e300])
def test_edge_values_match_the_flag_form(a, flags_kept):
    # cube_root at 0 divides by zero (the user's code raises), at inf/nan it stops at 50
    # trips: the same outcome, value or exception, with the flag and with `break`
    def outcome():
        try:
            return repr(sg.jvp(cube_root)(a, 1.0))
        except ZeroDivisionError as e:
            return f"ZeroDivisionError: {e}"
    native = outcome()
    flags_kept(True)
    kept = outcome()
    flags_kept(False)
    assert native == kept
    try:
        want = repr(cube_root(a))
    except ZeroDivisionError:
        assert native.startswith("ZeroDivisionError")
    else:
        assert native.startswith(f"({want},")


@pytest.mark.parametrize("make", [np.float64, np.float32, lambda v: np.array(v)])
def test_numpy_arguments(make, flags_kept):
    a = make(3.0)
    native = sg.grad(newton_log)(a), sg.grad(cube_root)(a)
    flags_kept(True)
    kept = sg.grad(newton_log)(a), sg.grad(cube_root)(a)
    flags_kept(False)
    assert repr(native) == repr(kept)
    assert all(type(g) is type(a) for g in native)
