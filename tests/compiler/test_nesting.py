"""Expression re-nesting in the backend (``backend/nesting.py``): a value read once is written
inside the expression that reads it, so emitted code reads like the user's and runs like it;
and moving a computation later never lets it read a rebound name, a slot already assigned
or an array written in place. Each program is checked against ``optimize=False`` (a literal
print, one statement per op) and central finite differences."""

import math
import re

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.test_native_breaks import newton_log
from tests.compiler.test_pass_loops import newton, scalar_loop
from tests.fd import numeric_gradient


def swap_in_loop(x, steps):
    a, b = x, 2.0 * x
    for _ in range(steps):
        a, b = b * 0.5 + math.sin(a), a * b * 0.25
    return a + b


def rebinding_chain(x):
    t = x * x
    u = math.sin(t) + t
    t = u * 3.0  # rebinds t while the old t's expression could still be pending
    v = math.cos(u) - t
    return v * t + u


def array_writes(x):
    y = np.zeros(4)
    z = x * 2.0
    y[1] = z[0] + z[1]
    w = y * x          # reads y after the write
    y[2] = w[3] * 3.0  # an in-place write while w's expression could be pending
    return np.sum(w * y) + np.sum(np.sin(z))


def negative_base(x):
    return x * (-2.0) ** np.floor(x)


def named_across_lines(x):
    t = x * 3.0 + 1.0
    return math.sin(t) * x


PROGRAMS = [
    (scalar_loop, (0.7, 12)),
    (swap_in_loop, (0.4, 9)),
    (rebinding_chain, (0.8,)),
    (array_writes, (np.linspace(0.2, 1.1, 4),)),
    (newton, (1.3,)),
    (negative_base, (2.5,)),
    (newton_log, (5.0,)),
    (named_across_lines, (0.4,)),
]


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
@pytest.mark.parametrize("mode", ["grad", "vjp", "jvp"])
def test_nested_code_computes_what_the_literal_print_computes(fn, args, mode):
    seeded = {"grad": lambda f: lambda *a: f(*a),
              "vjp": lambda f: lambda *a: f(*a, 1.0),
              "jvp": lambda f: lambda *a: f(*a, np.ones_like(a[0]))[1]}[mode]
    make = {"grad": sg.grad, "vjp": sg.vjp, "jvp": sg.jvp}[mode]
    got = seeded(make(fn))(*args)
    plain = seeded(make(fn, optimize=False))(*args)
    np.testing.assert_allclose(got, plain, rtol=1e-13, atol=1e-13)
    want = numeric_gradient(fn, args, {}, 0)
    if mode == "jvp":
        want = np.sum(want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_the_loop_body_reads_like_the_user_line():
    text = sg.source(sg.grad(scalar_loop), 0.5, 20)
    assert re.search(r"\n        y\w* = y \* x \+ math\.sin\(y\)\n", text), text
    reverse = sg.source(sg.vjp(scalar_loop), 0.5, 20, 1.0)
    assert re.search(r"= y \* x \+ math\.sin\(y\)\n", reverse), reverse


def test_arrays_are_nested_only_into_the_statement_right_after_them():
    """An array expression is never kept pending across another statement (it would keep
    its operands alive longer than a nested expression does)."""
    def chain(x):
        a = np.sin(x) * x + 1.0
        b = np.exp(-a * 0.5) * a
        return np.sum(b * b)

    x = np.linspace(0.1, 1.0, 5)
    np.testing.assert_allclose(sg.grad(chain)(x), sg.grad(chain, optimize=False)(x),
                               rtol=1e-13)
    text = sg.source(sg.grad(chain), x)
    assert "np.exp(-a * 0.5) * a" in text, text


def test_a_negative_number_keeps_its_parentheses_as_a_power_base():
    text = sg.source(sg.grad(negative_base), 2.5)
    assert "(-2.0) **" in text and "= -2.0 **" not in text, text
    assert sg.grad(negative_base)(2.5) == pytest.approx(4.0)
    assert sg.grad(negative_base)(3.5) == pytest.approx(-8.0)


def test_a_tangents_parts_from_the_line_before_are_written_in_its_update():
    """The quotient's tangent is computed at ``step``'s line but read once by ``dy``'s
    update on the next line: its nameless parts are written inside that update, as a
    person writes it (and a statement counts each op nested into it once, so the whole
    update fits in one expression)."""
    text = sg.source(sg.grad(newton_log), 5.0)
    assert "        dy = dy + (de * step - (de - 1.0)) / e\n" in text, text
    assert "_t" not in text, text
    for a in (0.5, 5.0, 40.0):
        got = sg.grad(newton_log)(a)
        assert got == pytest.approx(1.0 / a, rel=1e-12)
        assert math.isclose(got, sg.grad(newton_log, optimize=False)(a), rel_tol=1e-13)


def test_a_users_named_value_keeps_its_line():
    text = sg.source(sg.grad(named_across_lines), 0.4)
    assert re.search(r"\n    t = x \* 3\.0 \+ 1\.0\n", text), text


def root_loop(x, steps):
    y = 1.0
    for _ in range(steps):
        y = (y + x) ** 0.5
    return y


def test_a_tangent_part_moves_past_another_loop_variables_update():
    """``dy + 1.0`` reads the old ``dy``: written after ``y``'s update (``y`` assigned
    directly) it still reads the old ``dy``, so it is nested in ``dy``'s own update; only
    the update of a slot it reads would stop it."""
    text = sg.source(sg.grad(root_loop), 2.0, 10)
    assert "            dy = (dy + 1.0) * 0.5 / y\n" in text, text
    assert not re.search(r"\n +y = y_\d+\n", text), text
    for x in (0.0, 2.0, 7.5):
        got = sg.grad(root_loop)(x, 10)
        assert math.isclose(got, sg.grad(root_loop, optimize=False)(x, 10), rel_tol=1e-13)
        assert got == pytest.approx(float(numeric_gradient(root_loop, (x, 10), {}, 0)),
                                    rel=1e-6)
    assert sg.grad(sg.grad(root_loop))(2.0, 10) == pytest.approx(
        float(numeric_gradient(sg.grad(root_loop), (2.0, 10), {}, 0)), rel=1e-5)
