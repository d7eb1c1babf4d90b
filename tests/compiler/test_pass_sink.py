"""Loop results computed last (``passes/sink.py``): a loop-carried number's next value is
computed after the last read of its current value, so the emitted loop assigns the loop
variable directly (``y = y * x + math.sin(y)``), as a person writes it; a ``print`` between
keeps the order in which the user's code raises and prints."""

import math

import pytest

import srcgrad as sg
from tests.compiler.test_pass_loops import newton, scalar_loop
from tests.fd import numeric_gradient, numeric_hessian


def _body(text: str) -> list[str]:
    start = text.index("for i in range")
    return [line.strip() for line in text[start:].splitlines()[1:]
            if line.startswith("        ") and not line.strip().startswith("#")]


def test_the_forward_tangent_loop_assigns_the_loop_variables_directly():
    text = sg.source(sg.grad(scalar_loop), 0.5, 20)
    body = _body(text)
    # (dy's common factor taken out once: passes/tangent_algebra.py)
    assert body == ["dy = dy * (x + math.cos(y)) + y", "y = y * x + math.sin(y)"], text
    for x in (0.3, 0.5, 0.9):
        assert sg.grad(scalar_loop)(x, 20) == pytest.approx(
            float(numeric_gradient(scalar_loop, (x, 20), {}, 0)), rel=1e-6)


def two_carried(x, n):
    a, b = x, 1.0
    for _ in range(n):
        a_next = a * b + math.sin(b)
        b = b * 0.5 + math.cos(a)
        a = a_next
    return a + b


@pytest.mark.parametrize("fn, args", [(two_carried, (0.6, 7)), (newton, (1.3,)),
                                      (scalar_loop, (0.4, 9))],
                         ids=["two_carried", "newton", "scalar_loop"])
def test_sunk_loop_results_differentiate_in_every_mode(fn, args):
    expected = float(numeric_gradient(fn, args, {}, 0))
    assert sg.grad(fn)(*args) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert sg.vjp(fn)(*args, 1.0) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    _, tangent = sg.jvp(fn)(*args, 1.0)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert sg.grad(sg.grad(fn))(*args) == pytest.approx(
        float(numeric_hessian(sg.grad(fn, optimize=False), args, 0)), rel=1e-5, abs=1e-7)
    assert sg.grad(fn)(*args) == pytest.approx(sg.grad(fn, optimize=False)(*args), rel=1e-12)


def test_two_carried_values_read_each_others_old_values():
    """``b``'s next value reads the old ``a``: ``a``'s next value may not be written into
    ``a`` before it (the backend keeps a second name where a read follows)."""
    for x in (0.2, 0.6, 1.4):
        assert sg.grad(two_carried)(x, 7) == pytest.approx(
            float(numeric_gradient(two_carried, (x, 7), {}, 0)), rel=1e-6)
        assert sg.vjp(two_carried)(x, 7, 1.0) == pytest.approx(
            float(numeric_gradient(two_carried, (x, 7), {}, 0)), rel=1e-6)


def printed_steps(x, n):
    y = x
    for _ in range(n):
        y_next = 1.0 / y
        print("step", y)
        y = y_next
    return y


def test_a_print_keeps_the_order_of_the_users_exception(capsys):
    """``1.0 / y`` raises before the print at ``y == 0``: moved after it, the print would
    run first."""
    with pytest.raises(ZeroDivisionError):
        printed_steps(0.0, 2)
    assert capsys.readouterr().out == ""
    with pytest.raises(ZeroDivisionError):
        sg.grad(printed_steps)(0.0, 2)
    assert capsys.readouterr().out == ""
    assert sg.grad(printed_steps)(2.0, 3) == pytest.approx(
        float(numeric_gradient(printed_steps, (2.0, 3), {}, 0)), rel=1e-6)


def clamped(x, n):
    y = x
    for _ in range(n):
        y = min(max(x * y + 0.3, -1.0), 0.9) * 0.8 + 0.1 * math.sin(y)
    return y


def test_a_next_value_read_through_a_branch_still_moves_last():
    """``y``'s next value reads the clamp's branch result: the branch stays where it is and
    only the arithmetic after it moves, so the tangent (which reads the old ``y``) is
    written first and each loop variable is assigned directly."""
    text = sg.source(sg.grad(clamped), 0.6, 20)
    body = _body(text)
    assert body[-2:] == ["dy = _t1 * 0.8 + dy * math.cos(y) * 0.1",
                         "y = _t2 * 0.8 + 0.1 * math.sin(y)"], text
    assert not any(line.startswith("y_") for line in body), text
    for x in (-3.0, 0.2, 0.6, 2.0):
        got = sg.grad(clamped)(x, 20)
        assert got == sg.grad(clamped, optimize=False)(x, 20) or math.isclose(
            got, sg.grad(clamped, optimize=False)(x, 20), rel_tol=1e-12)
        assert got == pytest.approx(float(numeric_gradient(clamped, (x, 20), {}, 0)),
                                    rel=1e-6, abs=1e-9)
        assert sg.vjp(clamped)(x, 20, 1.0) == pytest.approx(got, rel=1e-12)
