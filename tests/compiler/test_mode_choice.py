"""sg.grad of a function of a few numbers (a float, a NumPy float scalar, a 0-d array; up to
three arguments in a tuple wrt) is emitted in forward mode, one tangent per number carried
beside the value; the result is identical in type, shape and dtype (and equal in value) to
the reverse-mode one (sg.vjp with seed 1.0 runs reverse mode), agrees with finite
differences, and sg.source says which mode was chosen and why."""

import math

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg


def loop_two(x, y):
    s = 0.0
    for i in range(6):
        s = s + math.sin(x * i) * y + x * y
    return s


def while_two(x, y):  # a while whose trip count depends on the values
    z = x
    n = 0
    while z < 4.0 and n < 20:
        z = z * (1.0 + y * y) + 0.1
        n += 1
    return z * x


def branch_three(a, b, c):
    if a * b > 0.1:
        out = np.exp(a) * b + c ** 3
    else:
        out = a * b * c
    for _ in range(3):
        out = np.tanh(out) + a * c
    return out


def zero_d(x):  # x a 0-d array
    y = x
    for _ in range(4):
        y = np.sin(y) * x + y
    return np.sum(y)


CASES = [
    ("two_floats", loop_two, (0.3, 0.7), (0, 1)),
    ("two_floats_named_wrt", loop_two, (0.3, 0.7), ("x", "y")),
    ("while", while_two, (0.4, 0.9), (0, 1)),
    ("three_floats_branch", branch_three, (0.5, 0.8, -0.3), (0, 1, 2)),
    ("three_floats_other_branch", branch_three, (0.5, -0.8, -0.3), (0, 1, 2)),
    ("two_of_three", branch_three, (0.5, 0.8, -0.3), (0, 2)),
    ("zero_d_float64", zero_d, (np.array(0.6),), 0),
    ("zero_d_float32", zero_d, (np.array(0.6, dtype=np.float32),), 0),
    ("numpy_scalar", zero_d, (np.float64(0.6),), 0),
    ("zero_d_in_tuple_wrt", loop_two, (np.array(0.3), 0.7), (0, 1)),
]


def _reverse(fn, args, wrt):
    """The reverse-mode gradient: sg.vjp is always reverse mode."""
    return sg.vjp(fn, wrt=wrt)(*args, 1.0)


def _assert_identical(got, want, float32=False):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_identical(g, w, float32)
        return
    assert np.shape(got) == np.shape(want)
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype
    tol = 1e-5 if float32 else 1e-12
    assert_close(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name, fn, args, wrt", CASES, ids=[c[0] for c in CASES])
def test_few_scalars_gradient_in_forward_mode_is_identical_to_reverse_mode(name, fn, args, wrt):
    grad = sg.grad(fn, wrt=wrt)
    got = grad(*args)
    assert "# forward mode: the gradient w.r.t." in sg.source(grad, *args)
    float32 = any(getattr(a, "dtype", None) == np.float32 for a in args)
    _assert_identical(got, _reverse(fn, args, wrt), float32)
    places = wrt if isinstance(wrt, tuple) else (wrt,)
    names = list(fn.__code__.co_varnames)
    for g, place in zip(got if isinstance(wrt, tuple) else (got,), places):
        i = names.index(place) if isinstance(place, str) else place
        h = 1e-3 if float32 else None
        kw = {"eps": h} if h else {}
        assert_close(np.float64(g), numeric_gradient(fn, args, None, i, **kw),
                     rtol=1e-2 if float32 else 1e-6, atol=1e-2 if float32 else 1e-6)


def test_value_and_grad_of_two_floats_in_forward_mode_is_identical_to_reverse_mode():
    vg = sg.value_and_grad(loop_two, wrt=(0, 1))
    value, grads = vg(0.3, 0.7)
    assert "# forward mode" in sg.source(vg, 0.3, 0.7)
    assert value == loop_two(0.3, 0.7)
    _assert_identical(grads, _reverse(loop_two, (0.3, 0.7), (0, 1)))


def test_second_derivative_of_a_zero_d_argument_through_forward_mode():
    x = np.array(0.6)
    second = sg.grad(sg.grad(zero_d))
    got = second(x)
    assert_close(got, numeric_gradient(sg.grad(zero_d), (x,), None, 0))


def four(a, b, c, d):
    return a * b * c * d + np.sin(a)


def test_more_than_three_numbers_or_an_array_stay_in_reverse_mode():
    grad = sg.grad(four, wrt=(0, 1, 2, 3))
    assert "forward mode" not in sg.source(grad, 0.1, 0.2, 0.3, 0.4)
    assert_close(np.array(grad(0.1, 0.2, 0.3, 0.4)),
                 np.array([numeric_gradient(four, (0.1, 0.2, 0.3, 0.4), None, i)
                           for i in range(4)]))
    vector = sg.grad(zero_d)
    assert "forward mode" not in sg.source(vector, np.array([0.6]))


def test_custom_vjp_rule_without_jvp_falls_back_to_reverse_mode():
    def inner(x):
        return x * x

    def rule(g, out, x):
        return 2.0 * x * g

    sq = sg.defvjp(inner, rule)

    def outer(x, y):
        return sq(x) * y

    grad = sg.grad(outer, wrt=(0, 1))
    assert "forward mode" not in sg.source(grad, 0.5, 2.0)
    assert_close(np.array(grad(0.5, 2.0)), np.array([2.0, 0.25]))


def pair_loop(ab, n):  # one argument: a tuple of two floats
    a, b = ab
    s = 0.0
    for i in range(n):
        s = s + math.sin(a * i) * b
    return s


def record(d):  # one argument: a dict of floats
    return d["x"] * np.sin(d["y"]) + d["x"] ** 2


def triple_with_int(t):  # a tuple of two floats and an int (its gradient leaf is None)
    return t[0] * t[1] * t[2]


@pytest.mark.parametrize("fn, args", [
    (pair_loop, ((0.3, 0.7), 5)),
    (record, ({"x": 0.5, "y": 0.2},)),
    (triple_with_int, ((0.5, 2, 0.3),)),
], ids=["tuple_of_two_floats", "dict_of_floats", "tuple_with_an_int"])
def test_tuple_or_dict_of_few_floats_in_forward_mode_is_identical_to_reverse_mode(fn, args):
    grad = sg.grad(fn)
    got = grad(*args)
    assert "# forward mode: the gradient w.r.t. 2 numbers" in sg.source(grad, *args)
    _assert_structure_identical(got, _reverse(fn, args, 0))
    value, again = sg.value_and_grad(fn)(*args)
    assert value == fn(*args)
    _assert_structure_identical(again, got)


def _assert_structure_identical(got, want):
    assert type(got) is type(want)
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for k in want:
            _assert_structure_identical(got[k], want[k])
    elif isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_structure_identical(g, w)
    elif want is not None:
        assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_tuple_of_floats_gradient_matches_finite_differences():
    ab = (0.3, 0.7)
    got = sg.grad(pair_loop)(ab, 5)
    for k in range(2):
        def moved(v, k=k):
            point = list(ab)
            point[k] = float(v)
            return pair_loop(tuple(point), 5)
        assert_close(got[k], numeric_gradient(moved, (ab[k],), None, 0))
