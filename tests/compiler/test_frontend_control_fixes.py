"""Regressions for frontend control-flow bugs found by the control-flow corpus.

Each program is checked against finite differences in reverse mode (optimize on and off)
and in forward mode (``sg.jvp`` against the same numbers), on inputs that take each path.
"""

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

# --- 1. tuples and lists through `if` and loops (were silently zero gradients) -------------


def ifexp_picks_a_tuple(x, y):
    a, b = (x, y) if x < y else (y, x)
    return a


def ifexp_picks_a_tuple_both_used(x, y):
    a, b = (x, y) if x < y else (y, x)
    return a * 3.0 + b * b


def if_assigns_a_tuple(x, y):
    if x < y:
        t = (x, y)
    else:
        t = (y, x)
    return t[0] * 3.0 + t[1]


def if_rebinds_a_tuple(x, y):
    t = (x, y)
    if x < y:
        t = (y, x * x)
    return t[0] + t[1]


def ifexp_picks_a_list(x, y):
    v = [x, y] if x < y else [y, x]
    return v[0] * v[1] + v[0]


def ifexp_picks_nested_tuples(x, y):
    t = ((x, y), x) if x < y else ((y, x), y)
    return t[0][1] * t[1]


def ifexp_tuple_with_constants(x, y):
    t = (x, 1.0) if x < y else (y, 2.0)
    return t[0] * t[1]


def for_loop_carries_a_tuple(x, y):
    t = (x, y)
    for _ in range(3):
        t = (t[1], t[0] * 2.0)
    return t[0] + 0.5 * t[1]


def while_loop_carries_a_tuple(x, y):
    t = (x, y)
    n = 0
    while x * n < 2.9:  # no trip-count change within the finite difference step
        t = (t[1], t[0] * 2.0)
        n = n + 1
    return t[0]


def early_return_of_a_tuple_element(x, y):
    if x < y:
        return (x * y, x)[0]
    return (y, x * x)[1]


TUPLE_PROGRAMS = [ifexp_picks_a_tuple, ifexp_picks_a_tuple_both_used, if_assigns_a_tuple,
                  if_rebinds_a_tuple, ifexp_picks_a_list, ifexp_picks_nested_tuples,
                  ifexp_tuple_with_constants, for_loop_carries_a_tuple,
                  while_loop_carries_a_tuple, early_return_of_a_tuple_element]
BOTH_ORDERS = [(0.5, 0.8), (0.9, 0.2)]


def _check_reverse_and_forward(fn, args, wrt):
    places = wrt if isinstance(wrt, tuple) else (wrt,)
    want = [numeric_gradient(fn, list(args), {}, p, None) for p in places]
    for optimize in (True, False):
        got = sg.grad(fn, wrt=wrt, optimize=optimize)(*args)
        got = got if isinstance(wrt, tuple) else (got,)
        for g, w, p in zip(got, want, places, strict=True):
            assert_close(g, w, what=f"{fn.__name__}{args} d/d{p} optimize={optimize}")
    rng = np.random.default_rng(0)
    tangents = tuple(float(rng.uniform(-1.0, 1.0)) for _ in places)
    value, derivative = sg.jvp(fn, wrt=wrt)(*args, tangents if isinstance(wrt, tuple)
                                                else tangents[0])
    assert value == pytest.approx(fn(*args))
    expected = sum(float(w) * t for w, t in zip(want, tangents))
    assert derivative == pytest.approx(expected, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("args", BOTH_ORDERS, ids=["ordered", "reversed"])
@pytest.mark.parametrize("fn", TUPLE_PROGRAMS, ids=lambda f: f.__name__)
def test_tuples_through_control_flow_have_gradients(fn, args):
    _check_reverse_and_forward(fn, args, (0, 1))


def tuples_of_different_lengths(x, y):
    t = (x, y) if x < y else (x,)
    return t[0]


def tuple_and_number_on_each_branch(x, y):
    if x < y:
        t = (x, y)
    else:
        t = x
    return t


def loop_grows_a_tuple(x, n):
    t = (x,)
    for _ in range(n):
        t = (t[0], x)
    return t[0]


def test_tuples_of_different_shapes_are_refused_clearly():
    with pytest.raises(sg.SrcGradError, match=r"this conditional expression holds a tuple "
                       r"of shape \(_, _\) on one branch .* a tuple of shape \(_,\) on the "
                       "other"):
        sg.grad(tuples_of_different_lengths)(0.5, 0.8)
    with pytest.raises(sg.SrcGradError, match=r"`t` holds a tuple of shape \(_, _\) on one "
                       "branch .* a single value on the other"):
        sg.grad(tuple_and_number_on_each_branch)(0.5, 0.8)
    with pytest.raises(sg.SrcGradError, match=r"`t` holds a tuple of shape \(_,\) before this "
                       r"loop and a tuple of shape \(_, _\) after an iteration"):
        sg.grad(loop_grows_a_tuple)(0.5, 3)


# --- 3. enumerate with a start ------------------------------------------------------------

X5 = np.linspace(0.1, 0.9, 5)


def enumerate_positional_start(x):
    s = 0.0
    for i, v in enumerate(x, 2):
        s = s + np.sin(v) * i
    return s


def enumerate_keyword_start(x):
    s = 0.0
    for i, v in enumerate(x, start=-1):
        s = s + v * v * i
    return s


def enumerate_start_from_an_argument(x, n):
    s = 0.0
    for i, v in enumerate(x, n):
        s = s + v * i
    return s


def enumerate_a_stepped_range(x):
    s = 0.0
    for k, i in enumerate(range(1, len(x), 2), 3):
        s = s + x[i] * x[i] * k
    return s


def enumerate_zip_with_a_start(a, b):
    s = 0.0
    for k, (u, v) in enumerate(zip(a, b), 1):
        s = s + u * v * k
    return s


@pytest.mark.parametrize("fn, args", [
    (enumerate_positional_start, (X5,)),
    (enumerate_keyword_start, (X5,)),
    (enumerate_start_from_an_argument, (X5, 3)),
    (enumerate_a_stepped_range, (X5,)),
    (enumerate_zip_with_a_start, (X5, X5[::-1] * 2.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_enumerate_with_a_start(fn, args):
    for optimize in (True, False):
        got = sg.grad(fn, optimize=optimize)(*args)
        assert_close(got, numeric_gradient(fn, list(args), {}, 0, None), what=fn.__name__)
    tangent = np.linspace(-1.0, 1.0, 5)
    value, derivative = sg.jvp(fn)(*args, tangent)
    assert value == pytest.approx(fn(*args))
    assert derivative == pytest.approx(float(np.dot(sg.grad(fn)(*args), tangent)))


def enumerate_float_start(x):
    s = 0.0
    for i, v in enumerate(x, 1.5):
        s = s + v * i
    return s


def enumerate_too_many_arguments(x):
    s = 0.0
    for i, v in enumerate(x, 1, 2):
        s = s + v * i
    return s


def zip_strict(a, b):
    s = 0.0
    for u, v in zip(a, b, strict=True):
        s = s + u * v
    return s


def test_enumerate_and_zip_errors_say_what_is_wrong():
    with pytest.raises(sg.SrcGradError, match=r"enumerate\(\) needs an int start, not float "
                       "1.5"):
        sg.grad(enumerate_float_start)(X5)
    with pytest.raises(sg.SrcGradError, match=r"bad call of enumerate\(\).*Call it as "
                       r"enumerate\(items\) or enumerate\(items, start\)"):
        sg.grad(enumerate_too_many_arguments)(X5)
    with pytest.raises(sg.SrcGradError, match=r"zip\(\) with keyword arguments .*Call "
                       r"zip\(a, b, \.\.\.\) without keywords"):
        sg.grad(zip_strict, wrt=(0, 1))(X5, X5)


# --- 2 and 4. names bound on some paths only: checked when read, at run time --------------

M34 = np.arange(12.0).reshape(3, 4) / 10.0


def read_under_the_same_test(x):
    if x > 0.0:
        e = x * 2.0
    if x > 0.0:
        return e * x
    return x


def array_read_under_the_same_test(x):
    y = x * 2.0
    positive = np.sum(x) > 0.0
    if positive:
        extra = np.cos(x)
        y = y + extra
    if positive:
        y = y * extra
    return np.sum(y * y)


def read_after_an_if_that_may_not_bind(x):
    if x > 0.0:
        e = x * 2.0
    return e * x


def loop_variable_after_the_loop(a):
    for row in a:
        pass
    return np.sum(row * row)


def loop_variable_bound_before_the_loop(a, b):
    row = b
    for row in a:
        pass
    return np.sum(row * row)


def name_first_assigned_in_a_loop(a, n):
    for i in range(n):
        last = a[i] * 2.0
    return np.sum(last) + i


def name_first_assigned_in_a_while_loop(x):
    n = 0
    while n * x < 2.0:
        z = x * n
        n = n + 1
    return z * x


@pytest.mark.parametrize("fn, args", [
    (read_under_the_same_test, (0.5,)),
    (read_under_the_same_test, (-0.5,)),
    (array_read_under_the_same_test, (M34[0],)),
    (array_read_under_the_same_test, (-M34[1],)),
    (read_after_an_if_that_may_not_bind, (0.5,)),
    (loop_variable_after_the_loop, (M34,)),
    (loop_variable_bound_before_the_loop, (M34, M34[0] + 1.0)),
    (loop_variable_bound_before_the_loop, (M34[:0], M34[0] + 1.0)),
    (name_first_assigned_in_a_loop, (M34, 2)),
    (name_first_assigned_in_a_while_loop, (0.3,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_names_bound_on_some_paths_are_usable_where_bound(fn, args):
    for optimize in (True, False):
        got = sg.grad(fn, optimize=optimize)(*args)
        assert_close(got, numeric_gradient(fn, list(args), {}, 0, None), what=fn.__name__)
    tangent = np.ones_like(args[0]) * 0.5 if isinstance(args[0], np.ndarray) else 0.5
    value, derivative = sg.jvp(fn)(*args, tangent)
    assert value == pytest.approx(fn(*args))
    assert derivative == pytest.approx(float(np.sum(sg.grad(fn)(*args) * tangent)))


@pytest.mark.parametrize("fn, args", [
    (read_after_an_if_that_may_not_bind, (-0.5,)),
    (loop_variable_after_the_loop, (M34[:0],)),
    (name_first_assigned_in_a_loop, (M34, 0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_reading_an_unbound_name_raises_like_python(fn, args):
    with pytest.raises(UnboundLocalError) as python:
        fn(*args)
    for derived in (sg.grad(fn), sg.grad(fn, optimize=False)):
        with pytest.raises(UnboundLocalError) as ours:
            derived(*args)
        assert str(ours.value) == str(python.value)
    with pytest.raises(UnboundLocalError):
        sg.jvp(fn)(*args, np.zeros_like(args[0]) if isinstance(args[0], np.ndarray) else 0.0)


def function_on_one_path(x):
    if x > 0.0:
        def helper(v):
            return v * 2.0
    return helper(x)


def tuple_first_assigned_in_a_loop(a):
    for row in a:
        pair = (row, row)
    return np.sum(pair[0])


def test_names_on_some_paths_that_cannot_be_carried_are_refused_clearly():
    with pytest.raises(sg.SrcGradError, match="`helper` is assigned on some paths only .* "
                       "holds a LocalFunction"):
        sg.grad(function_on_one_path)(0.5)
    with pytest.raises(sg.SrcGradError, match="`pair` is first assigned inside this loop"):
        sg.grad(tuple_first_assigned_in_a_loop)(M34)


def read_in_one_branch_then_after(x, y):
    if x > 0.0:
        e = x * 2.0
    if y > 0.0:
        x = e * e  # checked here: e is bound on this path from here on
    return e + x


def test_a_check_in_one_branch_does_not_cover_the_other():
    assert sg.grad(read_in_one_branch_then_after)(0.5, 1.0) == pytest.approx(6.0)
    assert sg.grad(read_in_one_branch_then_after)(0.5, -1.0) == pytest.approx(3.0)
    with pytest.raises(UnboundLocalError):
        sg.grad(read_in_one_branch_then_after)(-0.5, -1.0)
    source = sg.source(sg.grad(read_in_one_branch_then_after), 0.5, 1.0)
    assert source.count("is_unbound(e)") == 2  # once per path that reads it
