"""Negations folded into the arithmetic that reads them (``passes/negation.py``), in loop
bodies too, and an ``if`` with empty branches dropped (``passes/dce.py``). Each program is
checked against central finite differences in reverse, forward and second order, and the
emitted text is read for what the passes promise (no ``+ -``, no ``-(-``, no ``pass``)."""

import math
import re

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.test_pass_loops import newton
from tests.fd import directional_derivative, numeric_gradient, numeric_hessian


def minus_chain(x):
    # the user's own negations: the same number folded, one op cheaper
    y = x + -(x * x)
    z = y - -math.sin(x)
    return z + -(-x * math.cos(x) / 3.0)


def negations_in_loop(x, n):
    y = x
    for _ in range(n):
        y = y + -(0.25 * math.cos(y)) - -(x * -y) * 0.1
    return y


def array_negations(x):
    y = x + -np.sin(x) * x
    return np.sum(-(-y * np.cos(x)) - -x)


FLOAT_PROGRAMS = [(minus_chain, (0.7,)), (negations_in_loop, (0.4, 6)), (newton, (1.3,))]


def _derivative_texts(fn, args):
    wrt_value = args[0]
    yield sg.source(sg.grad(fn), *args)
    yield sg.source(sg.vjp(fn), *args, 1.0)
    yield sg.source(sg.jvp(fn), *args, wrt_value)


@pytest.mark.parametrize("fn, args", FLOAT_PROGRAMS, ids=[p[0].__name__ for p in FLOAT_PROGRAMS])
def test_negations_fold_into_the_arithmetic_that_reads_them(fn, args):
    for text in _derivative_texts(fn, args):
        code = "\n".join(line for line in text.splitlines()
                         if not line.lstrip().startswith("#"))
        assert not re.search(r"[+-] -", code), text
        assert "-(-" not in code and "-1.0 *" not in code, text


@pytest.mark.parametrize("fn, args", FLOAT_PROGRAMS, ids=[p[0].__name__ for p in FLOAT_PROGRAMS])
def test_folded_negations_differentiate_in_every_mode(fn, args):
    expected = float(numeric_gradient(fn, args, {}, 0))
    assert sg.grad(fn)(*args) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert sg.vjp(fn)(*args, 1.0) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    _, tangent = sg.jvp(fn)(*args, 1.0)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert sg.grad(fn)(*args) == pytest.approx(sg.grad(fn, optimize=False)(*args), rel=1e-12)
    second = sg.grad(sg.grad(fn))(*args)
    reference = float(numeric_hessian(sg.grad(fn, optimize=False), args, 0))
    assert second == pytest.approx(reference, rel=1e-5, abs=1e-7)


def test_folded_negations_on_arrays_differentiate_in_every_mode():
    x = np.linspace(-0.8, 1.1, 5)
    np.testing.assert_allclose(sg.grad(array_negations)(x),
                               numeric_gradient(array_negations, (x,), {}, 0),
                               rtol=1e-6, atol=1e-8)
    t = np.linspace(0.3, -0.2, 5)
    _, tangent = sg.jvp(array_negations)(x, t)
    assert tangent == pytest.approx(
        float(directional_derivative(array_negations, (x,), {0: t})), rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(sg.hessian(array_negations)(x),
                               numeric_hessian(sg.grad(array_negations), (x,), 0),
                               rtol=1e-5, atol=1e-7)
    text = sg.source(sg.grad(array_negations), x)
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert "-(-" not in code and not re.search(r"[+-] -", code), text
    assert not re.search(r"(\w+) = -(\w+)\n(.|\n)*= -\1\n", code), text


def bool_negation(x, mask):
    return np.sum(x + -mask)


def test_a_negated_bool_array_still_raises_the_users_error():
    """``-mask`` of a bool array raises TypeError in NumPy; ``x - mask`` would not: the
    negation of a value not known to be floating point is never folded."""
    with pytest.raises(TypeError):
        bool_negation(np.ones(3), np.array([True, False, True]))
    with pytest.raises(TypeError):
        sg.grad(bool_negation)(np.ones(3), np.array([True, False, True]))


def peeled_while(a):
    x = 1.0
    delta = 1.0
    while abs(delta) >= 1e-8:
        delta = (x - math.cos(a * x)) / (1.0 + a * math.sin(a * x))
        x = x - delta
    return x


def test_a_peeled_loop_test_with_empty_branches_leaves_no_if_behind():
    for text in (sg.source(sg.grad(peeled_while), 1.1), sg.source(sg.vjp(peeled_while), 1.1, 1.0)):
        assert "pass" not in text, text
    assert sg.grad(peeled_while)(1.1) == pytest.approx(
        float(numeric_gradient(peeled_while, (1.1,), {}, 0)), rel=1e-6)


def empty_branches_on_an_array(x):
    if x > 0.0:
        pass
    else:
        pass
    return np.sum(x * x)


def test_an_if_whose_test_may_raise_stays_even_with_empty_branches():
    """``if array:`` raises "truth value ... is ambiguous" for more than one element: the
    user's own error stays though the branches do nothing."""
    with pytest.raises(ValueError):
        empty_branches_on_an_array(np.ones(3))
    with pytest.raises(ValueError):
        sg.grad(empty_branches_on_an_array)(np.ones(3))
    np.testing.assert_allclose(sg.grad(empty_branches_on_an_array)(np.array([0.5])), [1.0])
