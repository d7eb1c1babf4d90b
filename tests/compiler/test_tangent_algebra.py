"""Forward mode's scalar tangents written the way a person writes them
(``passes/tangent_algebra.py``): a product's constants gathered into one, a factor common to
several terms taken out once, terms over one divisor summed before one division, a
division by a power of two written as the multiplication giving the same number. The
user's own arithmetic is never regrouped: its values stay bit for bit as written. Every
derivative is checked against central finite differences and ``optimize=False`` in
reverse, forward and second order."""

import math
import re

import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def square_map(x, steps):
    y = 0.0
    for _ in range(steps):
        y = x - 0.3 * y ** 2
    return y


def sine_map(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y)
    return y


def babylonian(x, steps):
    y = 1.0
    for _ in range(steps):
        y = (y + x / y) / 2.0
    return y


def kepler(m):
    big = m
    delta = 1.0
    while abs(delta) > 1e-13:
        delta = (big - 0.3 * math.sin(big) - m) / (1.0 - 0.3 * math.cos(big))
        big = big - delta
    return big


def logistic(x, steps):
    y = 0.3
    for _ in range(steps):
        y = x * y * (1.0 - y) / (1.0 + 0.1 * y)
    return y


def two_carried(x, steps):
    q, p = x, 0.0
    for _ in range(steps):
        p = p - 0.01 * math.sin(q) - 0.02 * p
        q = q + 0.01 * p
    return q * p


PROGRAMS = [(square_map, (0.9, 40)), (sine_map, (0.5, 30)), (babylonian, (2.0, 20)),
            (kepler, (1.2,)), (logistic, (2.9, 30)), (two_carried, (0.4, 50))]
IDS = [fn.__name__ for fn, _ in PROGRAMS]


def _loop_text(fn, args):
    """The emitted code from the loop on, without its ``# line N: <source>`` comments."""
    text = sg.source(sg.grad(fn), *args)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    return code[code.index("    for " if "    for " in code else "    while "):]


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=IDS)
def test_regrouped_scalar_tangents_differentiate_in_every_mode(fn, args):
    want = numeric_gradient(fn, args, {}, 0)
    assert_close(sg.grad(fn)(*args), want)
    # a regrouped tangent rounds differently from the literal one, by a few units in the
    # last place
    assert_close(sg.grad(fn)(*args), sg.grad(fn, optimize=False)(*args), rtol=1e-12,
                 atol=1e-13)
    assert_close(sg.vjp(fn)(*args, 1.0), want)
    assert_close(sg.jvp(fn)(*args, 1.0)[1], want)
    second = sg.grad(sg.grad(fn))(*args)
    assert_close(second, numeric_hessian(sg.grad(fn), args), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=IDS)
def test_the_users_values_stay_bit_for_bit_as_written_beside_a_regrouped_tangent(fn, args):
    value, _ = sg.jvp(fn)(*args, 1.0)
    assert value == fn(*args) and type(value) is type(fn(*args))


def test_constant_factors_of_a_tangent_product_are_gathered_into_one():
    loop = _loop_text(square_map, (0.9, 40))
    # dy = 1.0 - 0.6 * dy * y (2.0 * 0.3 at compile time), beside the user's own y ** 2
    assert re.search(r"dy = 1\.0 - 0\.6 \* dy \* y\n", loop), loop
    assert "y ** 2" in loop, loop


def test_a_factor_common_to_tangent_terms_is_taken_out_once():
    loop = _loop_text(sine_map, (0.5, 30))
    assert re.search(r"dy = dy \* \(x \+ math\.cos\(y\)\) \+ y\n", loop), loop


def test_tangent_terms_over_one_divisor_share_one_division():
    loop = _loop_text(babylonian, (2.0, 20))
    (tangent,) = [line for line in loop.splitlines() if line.strip().startswith("dy =")]
    assert tangent.count("/") == 1, loop
    loop = _loop_text(kepler, (1.2,))
    assert loop.count("/") == 2, loop  # delta's and its tangent's, nothing more


def test_a_division_by_a_power_of_two_is_the_multiplication_giving_the_same_number():
    loop = _loop_text(babylonian, (2.0, 20))
    assert "/ 2.0" not in loop and "* 0.5" in loop, loop
    for x in (2.0, 3.0, 1e-300, 7e300):
        value, _ = sg.jvp(babylonian)(x, 20, 1.0)
        assert value == babylonian(x, 20)


def test_the_users_power_still_raises_where_python_raises():
    def blows_up(x):
        y = x
        for _ in range(3):
            y = y ** 2 + 1.0
        return y

    with pytest.raises(OverflowError):
        blows_up(1e200)
    with pytest.raises(OverflowError):
        sg.grad(blows_up)(1e200)
    assert_close(sg.grad(blows_up)(0.7), numeric_gradient(blows_up, (0.7,), {}, 0))


def test_constant_multiples_of_one_tangent_become_one_constant_multiple():
    loop = _loop_text(two_carried, (0.4, 50))
    # p - 0.01 * sin(q) - 0.02 * p: dp - 0.02 * dp is one multiplication, dp * 0.98
    assert re.search(r"dp = dp \* 0\.98 - ", loop), loop
