"""The tangent of a square root written ``u ** 0.5`` divides by the user's root
(``passes/root_tangents.py``): ``dy = a / y`` where ``u > 0``, and everywhere else the
power rule's value as before (inf at ``u == 0``, nan for a negative ``u``). Checked against
``optimize=False`` (the literal power rule) bit for bit off the fast branch and to a few
ulp on it, against finite differences, and in second order (the composed transform reads
the IR without the rewrite)."""

import math
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.passes.root_tangents import ROOT_QUOTIENT, ROOT_TANGENT
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def root_loop(x):
    y = 1.0
    for _ in range(20):
        y = (y + x) ** 0.5
    return y


def root_once(x):
    y = (x - 1.0) ** 0.5
    return y * x


def root_read_twice(x):  # (the root is read twice by the user, its tangent once)
    u = x * x - 1.0
    y = u ** 0.5
    return y + math.sin(y) * x


def numpy_power_of_the_user(x):
    # the user's own np.power(u, -0.5) next to u ** 0.5: the user's value, never rewritten
    u = x + 1.0
    return u ** 0.5 + np.power(u, -0.5) * x


def root_of_a_dead_value(x):
    y = (x + 1.0) ** 0.5  # only its derivative is needed: no root to reuse
    return y


def _text(fn, *args):
    return sg.source(sg.grad(fn), *args)


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a)
                                                  == math.copysign(1, b))


def test_a_root_loops_tangent_divides_by_the_users_root():
    text = _text(root_loop, 2.0)
    assert "math.pow" not in text and "try:" not in text, text
    assert "        y = _t1 ** 0.5\n" in text, text
    assert "        if _t1 > 0.0:\n            dy = (dy + 1.0) * 0.5 / y\n" in text, text
    assert "        else:\n            dy = (dy + 1.0) * 0.5 * float(np.power(_t1, -0.5))\n" in text


def test_without_the_rewrite_the_power_rule_calls_pow():
    text = sg.source(sg.grad(root_loop, optimize=False), 2.0)
    assert "** -0.5" in text or "pow(" in text, text


@pytest.mark.parametrize("x", [2.0, 0.3, 1e-300, 5e-324, 1e300, 3.0e10])
def test_a_root_loops_derivative_is_the_power_rules_within_a_few_ulp(x):
    got, want = sg.grad(root_loop)(x), sg.grad(root_loop, optimize=False)(x)
    assert type(got) is float
    assert math.isclose(got, want, rel_tol=1e-14), (got, want)
    assert_close(got, numeric_gradient(root_loop, (x,), {}, 0)) if 1e-3 < x < 1e6 else None


# Off the positive branch, what the power rule's code gave before the rewrite: inf at a
# zero root, nan where ``u ** -0.5`` is nan or 0 * inf, and a TypeError where the user's own
# value is complex (Python's root of a negative float) and reaches the float gradient.
# ValueError: the user's math.sin of an infinite root.
OUTCOMES = [
    (root_once, 1.0, math.inf), (root_once, math.inf, math.nan),
    (root_once, -math.inf, math.nan), (root_once, math.nan, math.nan),
    (root_once, 0.0, TypeError), (root_once, -0.0, TypeError), (root_once, -1.0, TypeError),
    (root_once, 5e-324, TypeError),
    (root_read_twice, 1.0, math.inf), (root_read_twice, -1.0, math.nan),
    (root_read_twice, 0.0, TypeError), (root_read_twice, math.inf, ValueError),
    (root_read_twice, math.nan, math.nan),
    (root_loop, -1.0, TypeError), (root_loop, -5.0, TypeError), (root_loop, math.inf, 0.0),
    (root_loop, -math.inf, math.nan), (root_loop, math.nan, math.nan),
]


@pytest.mark.parametrize("fn, x, want", OUTCOMES,
                         ids=[f"{f.__name__}-{x}" for f, x, _ in OUTCOMES])
def test_off_the_positive_branch_the_results_are_the_power_rules(fn, x, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if isinstance(want, type):
            with pytest.raises(want):
                sg.grad(fn)(x)
            return
        got = sg.grad(fn)(x)
    assert type(got) is float and _same(got, want), (got, want)


@pytest.mark.parametrize("x", [0.0, -0.0, 5e-324, 1e-300])
def test_a_root_loop_from_a_tiny_or_zero_argument(x):
    # y = 1.0 at the start: every u is positive; y converges to the golden ratio's root
    got, want = sg.grad(root_loop)(x), sg.grad(root_loop, optimize=False)(x)
    assert math.isclose(got, want, rel_tol=1e-14), (got, want)


def test_a_root_read_by_two_tangent_terms():
    text = _text(root_read_twice, 2.0)
    assert "math.pow" not in text, text
    # (``du``, read once by the root's tangent, is written in both of its branches)
    assert "    if u > 0.0:\n        _t1 = (x + x) * 0.5 / y\n" in text, text
    assert "        _t1 = (x + x) * 0.5 * float(np.power(u, -0.5))\n" in text, text
    for x in (2.0, -3.0, 1.5):
        assert_close(sg.grad(root_read_twice)(x), numeric_gradient(root_read_twice, (x,), {}, 0))


def test_the_users_own_numpy_power_is_not_rewritten():
    text = _text(numpy_power_of_the_user, 0.5)
    assert "np.power(u, -0.5)" in text or "math.pow(u, -0.5)" in text, text
    for x in (0.5, 3.0, -1.0, -2.0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = sg.grad(numpy_power_of_the_user)(x)
            want = sg.grad(numpy_power_of_the_user, optimize=False)(x)
        assert _same(got, want) or math.isclose(got, want, rel_tol=1e-14), (x, got, want)


def test_a_dead_root_is_not_computed_for_its_tangent():
    text = _text(root_of_a_dead_value, 3.0)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "** 0.5" not in code and "math.pow(_t1, -0.5)" in code, text


def test_the_rewrite_is_only_in_the_emitted_copy():
    g = sg.grad(root_loop)
    g(2.0)
    ir = g.__srcgrad__.entry_for([2.0]).ir
    prims = {op.prim for op in ir.body.walk()}
    assert ROOT_QUOTIENT not in prims  # (a composed transform differentiates this IR)
    assert any(op.attrs.get(ROOT_TANGENT) for op in ir.body.walk())


@pytest.mark.parametrize("x", [2.0, 0.7])
def test_second_order_and_jvp_through_the_root_loop(x):
    want = numeric_gradient(root_loop, (x,), {}, 0)
    assert_close(sg.jvp(root_loop)(x, 1.0)[1], want)
    assert_close(sg.vjp(root_loop)(x, 1.0), want)
    assert_close(sg.grad(sg.grad(root_loop))(x), numeric_hessian(sg.grad(root_loop), (x,)),
                 rtol=1e-5, atol=1e-5)
    assert_close(sg.grad(sg.grad(root_loop))(x),
                 sg.grad(sg.grad(root_loop, optimize=False), optimize=False)(x),
                 rtol=1e-12, atol=1e-12)


def test_float32_and_numpy_scalars_keep_the_power():
    # only Python floats are rewritten: a NumPy scalar's root is NumPy's (never complex)
    for x in (np.float64(2.0), np.float32(2.0)):
        got = sg.grad(root_loop)(x)
        assert type(got) is type(x)
        assert_close(float(got), sg.grad(root_loop, optimize=False)(float(x)),
                     rtol=1e-5 if isinstance(x, np.float32) else 1e-13)


def root_of_a_product(a, b):
    y = (a * b) ** 0.5
    return y * a + b


def test_a_root_tangent_read_by_two_directions_is_one_reciprocal():
    # two tangents (d/da, d/db) read u ** -0.5: it becomes 1.0 / y once, read by both
    text = sg.source(sg.grad(root_of_a_product, wrt=(0, 1)), 0.3, 0.5)
    assert "    if _t1 > 0.0:\n        _t1 = 1.0 / y\n    else:\n" \
           "        _t1 = float(np.power(_t1, -0.5))\n" in text, text
    for a, b in ((0.3, 0.5), (2.0, 3.0), (1e-150, 3e-150), (-1.0, -4.0)):
        got = sg.grad(root_of_a_product, wrt=(0, 1))(a, b)
        want = sg.grad(root_of_a_product, wrt=(0, 1), optimize=False)(a, b)
        for g, w in zip(got, want):
            assert math.isclose(g, w, rel_tol=1e-14), (got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # u == 0: u ** -0.5 is inf, times a tangent term that is 0: nan, as before
        da, db = sg.grad(root_of_a_product, wrt=(0, 1))(0.0, 0.5)
        assert math.isnan(da) and math.isnan(db), (da, db)
        da, db = sg.grad(root_of_a_product, wrt=(0, 1))(-2.0, 0.0)  # a * a * 0.5 * inf
        assert math.isnan(da) and db == math.inf, (da, db)


# --- -1 <= c < 0: u ** (c - 1) is the user's y = u ** c over u -------------------------

def inverse_root_loop(x):
    y = 1.0
    for _ in range(10):
        y = (y + x) ** -0.5
    return y


def inverse_root_once(x):
    y = (x - 1.0) ** -0.5
    return y * x


def reciprocal_once(x):
    y = (x - 1.0) ** -1
    return y * x + y


def tenth_root(x):  # c - 1 is not exact: the power rule's power stays
    y = (x + 1.0) ** -0.1
    return y * x


def cube_root(x):  # 0 < c < 1, c != 0.5: u ** c / u is nan at u == inf: the power stays
    y = (x + 1.0) ** (1.0 / 3.0)
    return y * x


def test_an_inverse_roots_tangent_divides_the_users_value_by_its_base():
    text = _text(inverse_root_loop, 2.0)
    assert "        if _t1 > 0.0:\n            dy = (dy + 1.0) * -0.5 * y / _t1\n" in text, text
    assert "            dy = (dy + 1.0) * -0.5 * float(np.power(_t1, -1.5))\n" in text, text
    assert "math.pow" not in text, text
    text = _text(reciprocal_once, 3.0)
    assert " y / _t1\n" in text and "np.power(_t1, -2.0)" in text, text
    for fn in (tenth_root, cube_root):
        text = _text(fn, 3.0)
        assert "math.pow(_t1, -" in text and "if _t1 > 0.0" not in text, text


@pytest.mark.parametrize("fn", [inverse_root_loop, inverse_root_once, reciprocal_once])
@pytest.mark.parametrize("x", [2.0, 3.5, 1.25, 40.0, 1e10])
def test_inverse_powers_match_the_power_rule(fn, x):
    got, want = sg.grad(fn)(x), sg.grad(fn, optimize=False)(x)
    assert math.isclose(got, want, rel_tol=1e-13), (got, want)
    if x < 1e3:
        assert_close(got, numeric_gradient(fn, (x,), {}, 0))


INVERSE_OUTCOMES = [
    (inverse_root_loop, -1.0, ZeroDivisionError),  # the user's 0.0 ** -0.5
    (inverse_root_loop, -5.0, TypeError), (inverse_root_loop, math.inf, -0.0),
    (inverse_root_loop, math.nan, math.nan),
    (inverse_root_once, 1.0, ZeroDivisionError), (inverse_root_once, 0.3, TypeError),
    (inverse_root_once, math.inf, math.nan), (inverse_root_once, math.nan, math.nan),
    (inverse_root_once, 2.0, 0.0),
    (reciprocal_once, 1.0, ZeroDivisionError), (reciprocal_once, -1.0, -0.5),
    (reciprocal_once, 0.0, -2.0), (reciprocal_once, math.inf, math.nan),
    (reciprocal_once, 1e308, 1e-308),
]


@pytest.mark.parametrize("fn, x, want", INVERSE_OUTCOMES,
                         ids=[f"{f.__name__}-{x}" for f, x, _ in INVERSE_OUTCOMES])
def test_inverse_powers_off_the_positive_branch(fn, x, want):
    test_off_the_positive_branch_the_results_are_the_power_rules(fn, x, want)


def test_an_underflowing_power_no_longer_loses_the_tangent():
    # u ** -1.5 underflows to 0 at u == 1e300 where y / u (1e-150 / 1e300 times x) does
    # not: the derivative of x * (x - 1) ** -0.5 there is 0.5e-150, not 1e-150
    got = sg.grad(inverse_root_once)(1e300)
    assert math.isclose(got, 0.5e-150, rel_tol=1e-14), got
