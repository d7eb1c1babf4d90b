"""Number terms of a written-out VJP (``autograd.typed_vjp.Hoisted``): arithmetic on a
number input alone (``x ** c``'s ``c == 0`` and ``c - 1``) computed once per node and kept
per dtype and value, with the generic path's values bit for bit, its dtypes, and its
behaviour where Python arithmetic raises."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.autograd.typed_vjp import NUM, Hoisted, inline_typed
from srcgrad.rules import rule_named
from tests.runtime.test_backward_written_forms import _both_ways

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def test_powers_number_terms_are_written_once_as_h():
    vjp = rule_named("power").vjp["x"]
    expr, numbers, terms = inline_typed(vjp, ["g", "x", "y"], [0, 1], [2])
    assert terms == [("(y == 0)", "cond"), ("(y - 1)", "num")]
    assert "(y == 0)" not in expr and "(y - 1)" not in expr
    assert expr == ("(g * ((y * ((x if not h[0] else np.where(h[0], k[0], x)) ** h[1])) "
                    "if not h[0] else np.where(h[0], k[1], (y * ((x if not h[0] else "
                    "np.where(h[0], k[0], x)) ** h[1])))))")
    assert numbers == [1.0, 0.0]


def test_a_number_term_meeting_a_ufunc_or_negated_is_hoisted_too():
    expr, _, terms = inline_typed(lambda g, x, y: g * np.exp(-y) * (x + (y * 2.0)),
                                  ["g", "x", "y"], [0, 1], [2])
    assert terms == [("(-y)", "num"), ("(y * 2.0)", "num")]
    assert expr == "((g * np.exp(h[0])) * (x + h[1]))"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hoisted_terms_are_numpys_own_values_and_dtypes(dtype):
    hoisted = Hoisted([("(y == 0)", "cond"), ("(y - 1)", NUM), ("(y * 0.1)", NUM)], ["y"])
    y = np.array(2.5, dtype)
    zero, less, tenth = hoisted(y.dtype, y)
    assert zero == (y == 0)
    for got, want in ((less, y - 1), (tenth, y * 0.1)):
        assert type(got) is np.ndarray and got.ndim == 0 and not got.flags.writeable
        assert got.dtype == want.dtype == dtype and got == want
    assert hoisted.caches[dtype == np.float64][2.5][1] is less  # kept by value and dtype
    assert 2.5 not in hoisted.caches[dtype != np.float64]
    # Python numbers stay Python numbers (a weak scalar meeting an array stays weak)
    assert hoisted(y.dtype, 3) == (False, 2, 3 * 0.1)
    assert type(hoisted(y.dtype, 3)[1]) is int


def test_hoisted_terms_not_kept_for_zero_nan_or_ints_and_none_when_python_raises():
    hoisted = Hoisted([("(1 / y)", NUM)], ["y"])
    assert hoisted(F64, 0) is None  # ZeroDivisionError: the plain expression runs
    with np.errstate(all="ignore"):  # (as the backward pass runs it)
        for y in (np.array(-0.0), np.array(0.0), np.array(np.nan)):
            assert hoisted(F64, y) is not None
    assert hoisted(F64, 4) == (0.25,)
    assert hoisted.caches == ({}, {})


EXPONENTS = [2.0, 2.0, 3, 0.5, -1.5, 1, 1.0, 0.0, -0.0, 0, np.nan, np.inf, -np.inf, 1e-45,
             2.0 ** 40 + 1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_power_by_numbers_gives_the_generic_paths_gradient_bit_for_bit(dtype):
    x0 = np.array([0.3, 0.0, 1.7, 2.5, -0.0, np.inf, 1e-30])
    for exponent in EXPONENTS:
        def run():
            x = sg.tensor(x0.astype(dtype), requires_grad=True)
            ((x * 1.0) ** exponent).sum().backward()
            return x.grad.numpy()

        written, generic = _both_ways(run)
        assert written.dtype == generic.dtype == dtype, exponent
        np.testing.assert_array_equal(written, generic, err_msg=str(exponent))


@pytest.fixture
def written():
    """The written-out backward on (whatever SRCGRAD_SPECIALIZE says for the session)."""
    previous = set_specialized(True)
    yield
    set_specialized(previous)


def test_the_written_backward_keeps_an_exponents_terms_per_dtype(written):
    grads = {}
    for dtype in (np.float32, np.float64):
        x = sg.tensor(np.array([0.5, 2.0], dtype), requires_grad=True)
        y = x ** 2.5
        namespace = y.grad_fn._plan.backward.__globals__
        y.sum().backward()
        grads[dtype] = x.grad.numpy()
        terms = next(namespace[n] for n in namespace if n.startswith("HC"))
        assert terms[dtype == np.float64][2.5][1].dtype == dtype
        np.testing.assert_allclose(grads[dtype], 2.5 * np.array([0.5, 2.0]) ** 1.5, rtol=1e-6)
        assert grads[dtype].dtype == dtype
