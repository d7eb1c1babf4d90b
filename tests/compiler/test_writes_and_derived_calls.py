"""Writes, scalars, the cache key and derived functions called inside differentiated code.

Every derivative is checked against central finite differences (``fd.py``), in reverse and
forward mode, and at second order where that makes sense; refusals are checked for the
construct, the user's file:line and advice (``test_errors.assert_good_message``).
"""

import os
import sys

import numpy as np
import pytest
from fd import assert_close, numeric_gradient
from test_errors import assert_good_message, compile_error, marked_line

import srcgrad as sg

THIS_FILE = os.path.basename(__file__)
X3 = np.array([0.7, -1.3, 2.1])
M23 = np.array([[0.3, -0.8, 1.2], [0.5, 1.7, -0.4]])


def _direction(x):
    return np.cos(np.arange(np.size(x)) + 1.0).reshape(np.shape(x)) if np.ndim(x) else 0.6


def check_derivatives(f, x, second=True):
    """grad, jvp and (optionally) the Hessian of scalar ``f`` at ``x`` against finite
    differences (the Hessian: differences of the gradient, itself checked first)."""
    want = numeric_gradient(f, [x], {}, 0)
    assert_close(sg.grad(f)(x), want)
    v = _direction(x)
    value, tangent = sg.jvp(f)(x, v)
    assert_close(value, f(np.copy(x) if np.ndim(x) else x), what="primal")
    assert_close(tangent, np.sum(want * v), what="tangent")
    if second:
        df = sg.grad(f)
        want_h = np.stack([numeric_gradient(lambda y: np.sum(df(y) * e), [x], {}, 0)
                           for e in np.eye(np.size(x))]).reshape(np.shape(x) * 2)
        assert_close(sg.hessian(f)(x), want_h, rtol=1e-5, atol=1e-5, what="hessian")


def two_args(x, y):
    return x * np.sin(y) + y * y


# --- the cache key includes the form of the result ---------------------------------------------

@pytest.mark.parametrize("first", ["bare", "tuple"])
def test_wrt_int_and_one_tuple_keep_their_own_result_forms(first):
    sg.clear_cache()
    bare, one_tuple = sg.grad(two_args, wrt=1), sg.grad(two_args, wrt=(1,))
    calls = [bare, one_tuple] if first == "bare" else [one_tuple, bare]
    results = {id(c): c(0.4, 1.1) for c in calls}
    want = numeric_gradient(two_args, [0.4, 1.1], {}, 1)
    assert not isinstance(results[id(bare)], tuple)
    assert_close(results[id(bare)], want)
    assert isinstance(results[id(one_tuple)], tuple) and len(results[id(one_tuple)]) == 1
    assert_close(results[id(one_tuple)][0], want)


@pytest.mark.parametrize("transform", [sg.vjp, sg.value_and_grad])
def test_wrt_int_and_one_tuple_keep_their_forms_in_vjp_and_value_and_grad(transform):
    sg.clear_cache()
    bare, one_tuple = transform(two_args, wrt=1), transform(two_args, wrt=(1,))
    extra = (1.0,) if transform is sg.vjp else ()
    got_tuple = one_tuple(0.4, 1.1, *extra)
    got_bare = bare(0.4, 1.1, *extra)
    if transform is sg.value_and_grad:
        got_tuple, got_bare = got_tuple[1], got_bare[1]
    assert isinstance(got_tuple, tuple) and not isinstance(got_bare, tuple)
    assert_close(got_bare, got_tuple[0])


def test_wrt_by_name_and_by_position_give_the_same_form():
    sg.clear_cache()
    by_name, by_position = sg.grad(two_args, wrt=("y",)), sg.grad(two_args, wrt=1)
    assert isinstance(by_name(0.4, 1.1), tuple)
    assert not isinstance(by_position(0.4, 1.1), tuple)
    assert not isinstance(sg.grad(two_args, wrt="y")(0.4, 1.1), tuple)


# --- an augmented assignment to a NumPy scalar rebinds a name ----------------------------------

def scales_a_full_integer_index_of_the_argument(p):
    c = p[2]
    c *= 2.0
    return c * p[0] + np.sum(p * p)


def divides_a_full_integer_index_of_a_local_matrix(p):
    W = np.outer(p, p)
    c = W[-1, 2]
    c /= 2.0
    c -= W[0, 1]
    return c * W[1, 1]


def scales_run_time_indexed_elements(p):
    s = 0.0
    for i in range(3):
        c = p[i]
        c *= p[i]
        s += c
    return s


def writes_into_a_local_after_reading_one_element(p):
    W = np.outer(p, p)
    c = W[0, 2]
    W[0, 0] = 3.0 * p[1]
    c += 1.0
    return np.sum(W) * c


def scales_a_python_float_taken_from_the_argument(p):
    c = float(p[1])
    c **= 2
    return c * p[2]


SCALAR_REBINDS = [scales_a_full_integer_index_of_the_argument,
                  divides_a_full_integer_index_of_a_local_matrix,
                  scales_run_time_indexed_elements,
                  writes_into_a_local_after_reading_one_element,
                  scales_a_python_float_taken_from_the_argument]


@pytest.mark.parametrize("fn", SCALAR_REBINDS, ids=[f.__name__ for f in SCALAR_REBINDS])
def test_augmented_assignment_to_an_element_scalar_rebinds_and_differentiates(fn):
    x = X3.copy()
    check_derivatives(fn, x)
    np.testing.assert_array_equal(x, X3)  # the caller's array is untouched


def scales_a_row_view_of_the_argument(m):
    r = m[1]
    r *= 2.0  # <- error
    return np.sum(r)


def scales_a_slice_of_the_argument(m):
    r = m[0, 1:]
    r += 1.0  # <- error
    return np.sum(r)


def scales_a_far_row_of_a_local_matrix(m):
    W = np.concatenate([m, m, m])
    r = W[4]
    r *= 2.0  # <- error
    return np.sum(W) + np.sum(r)


STILL_VIEWS = [scales_a_row_view_of_the_argument, scales_a_slice_of_the_argument,
               scales_a_far_row_of_a_local_matrix]


@pytest.mark.parametrize("fn", STILL_VIEWS, ids=[f.__name__ for f in STILL_VIEWS])
def test_augmented_assignment_to_a_view_is_still_refused(fn):
    m = M23.copy()
    error = compile_error(fn, m)
    assert_good_message(error, ["augmented assignment", "=` would modify"], marked_line(fn),
                        THIS_FILE)
    assert ".copy()" in str(error)
    np.testing.assert_array_equal(m, M23)


# --- fancy-index writes with repeated indices: the derivative of what NumPy computes -----------

WEIGHTS = np.array([1.0, 2.0, 3.0])


def adds_at_repeated_indices(x):
    y = np.zeros(3)
    y[np.array([0, 2, 2])] += x
    return np.sum(y * WEIGHTS)


def assigns_at_repeated_indices(x):
    y = np.zeros(3)
    y[np.array([0, 2, 2])] = x
    return np.sum(y * WEIGHTS)


@pytest.mark.parametrize("fn", [adds_at_repeated_indices, assigns_at_repeated_indices])
def test_repeated_index_write_of_a_scalar_counts_the_last_write_only(fn):
    # y[2] = y_old[2] + x once (NumPy keeps the last write), so the derivative is 1 + 3
    check_derivatives(fn, 0.7, second=False)
    assert_close(sg.grad(fn)(0.7), 4.0)


def nonlinear_repeated_add(v, y0):
    y = y0 * 2.0
    y[np.array([0, 2, 2, 1, 0])] += v * v
    return np.sum(y * y * WEIGHTS)


def nonlinear_repeated_assign(v, y0):
    y = np.sin(y0)
    y[np.array([2, 0, 2, 1, 2])] = v * y0[0]
    return np.sum(y * y * WEIGHTS)


def repeated_rows_of_a_matrix(v, y0):
    y = np.outer(y0, y0)
    y[[1, 1, 0]] = v
    return np.sum(np.sin(y) * y)


def repeated_columns_with_a_scalar(v, y0):
    y = np.outer(y0, y0)
    y[:, [2, 2]] += v[0] * v[1]
    return np.sum(y * y)


def masked_write(v, y0):
    y = y0 * y0
    y[y0 > 0] = v[0]
    return np.sum(y * WEIGHTS)


V5 = np.array([0.3, -0.6, 1.1, 0.8, -1.4])
WRITES = [(nonlinear_repeated_add, V5), (nonlinear_repeated_assign, V5),
          (repeated_rows_of_a_matrix, np.array([0.2, -0.5, 0.9])),
          (repeated_columns_with_a_scalar, np.array([0.4, -1.2])), (masked_write, V5[:1])]


@pytest.mark.parametrize("fn, v", WRITES, ids=[f.__name__ for f, _ in WRITES])
@pytest.mark.parametrize("wrt", [0, 1])
def test_fancy_index_write_differentiates_like_numpy_computes(fn, v, wrt):
    y0 = X3.copy()
    args = [v, y0]
    want = numeric_gradient(fn, args, {}, wrt)
    assert_close(sg.grad(fn, wrt=wrt)(*args), want)
    assert_close(sg.vjp(fn, wrt=wrt)(*args, 1.0), want)
    direction = _direction(args[wrt])
    _, tangent = sg.jvp(fn, wrt=wrt)(*args, direction)
    assert_close(tangent, np.sum(want * direction), what="tangent")
    # second order: the Hessian block against differences of the (checked) gradient
    df = sg.grad(fn, wrt=wrt)

    def along(point, e):
        call = list(args)
        call[wrt] = point
        return np.sum(df(*call) * e)

    size = np.size(args[wrt])
    want_h = np.stack([numeric_gradient(along, [args[wrt], e], {}, 0)
                       for e in np.eye(size).reshape((size, *np.shape(args[wrt])))])
    assert_close(sg.hessian(fn, wrt=wrt)(*args), want_h.reshape(np.shape(args[wrt]) * 2),
                 rtol=1e-5, atol=1e-5, what="hessian")
    np.testing.assert_array_equal(y0, X3)


def reads_repeated_indices(x):
    return np.sum(x[np.array([0, 0, 1, 2, 2, 2])] * np.sin(x[[1, 1]][0]))


def test_repeated_index_read_still_accumulates():
    check_derivatives(reads_repeated_indices, X3)


# --- derived functions called inside differentiated code ---------------------------------------

def inner(x, y):
    return np.sin(x) * y + x * x * y


def shifted(x, c=1.0):
    return np.sin(x) * x + c


def pair(x, y):
    return x * y, x + np.cos(y)


JVP_INNER_BOTH = sg.jvp(inner, wrt=(0, 1))
VJP_PAIR = sg.vjp(pair)


def calls_jvp_with_a_tangent_tuple(t0, t1):
    value, slope = sg.jvp(inner, wrt=(0, 1))(0.3, 0.8, (t0, t1))
    return slope * value + t0


def calls_a_module_level_jvp_with_a_tangent_tuple(t0, t1):
    value, slope = JVP_INNER_BOTH(t0 * 0.5, 0.8, (t0, t1 * t1))
    return slope * value


def calls_jvp_of_a_function_with_a_default(x, t):
    value, slope = sg.jvp(shifted)(x, t)
    return value * slope


def calls_jvp_overriding_the_default(x, t):
    value, slope = sg.jvp(shifted)(x, t, c=x * t)
    return value * slope


def calls_vjp_of_a_function_with_a_default(x, s):
    return sg.vjp(shifted)(x, s) * x


def calls_vjp_with_a_seed_tuple(s0, s1):
    return sg.vjp(pair)(0.3, 0.8, (s0, s1 * s0))


def calls_a_module_level_vjp_with_a_seed_tuple(x, s):
    return VJP_PAIR(x, 0.8, (s, x * s)) * x


def calls_grad_with_a_tuple_wrt(x, y):
    a, b = sg.grad(inner, wrt=(0, 1))(x, y)
    return a * b


def calls_value_and_grad(x, y):
    value, slope = sg.value_and_grad(inner)(x, y)
    return value * slope


def calls_vjp_of_an_array_function(x, s):
    return np.sum(sg.vjp(lambda_free_tanh)(x, s) * x)


def lambda_free_tanh(x):
    return np.tanh(x) * x


DERIVED_CALLS = [(calls_jvp_with_a_tangent_tuple, (0.5, 1.5)),
                 (calls_a_module_level_jvp_with_a_tangent_tuple, (0.5, 1.5)),
                 (calls_jvp_of_a_function_with_a_default, (0.4, 1.2)),
                 (calls_jvp_overriding_the_default, (0.4, 1.2)),
                 (calls_vjp_of_a_function_with_a_default, (0.4, 1.2)),
                 (calls_vjp_with_a_seed_tuple, (0.5, 1.5)),
                 (calls_a_module_level_vjp_with_a_seed_tuple, (0.5, 1.5)),
                 (calls_grad_with_a_tuple_wrt, (0.5, 1.5)),
                 (calls_value_and_grad, (0.5, 1.5)),
                 (calls_vjp_of_an_array_function, (X3, X3[::-1].copy()))]


@pytest.mark.parametrize("fn, args", DERIVED_CALLS, ids=[f.__name__ for f, _ in DERIVED_CALLS])
@pytest.mark.parametrize("wrt", [0, 1])
def test_derived_function_called_inside_differentiates(fn, args, wrt):
    want = numeric_gradient(fn, list(args), {}, wrt)
    assert_close(sg.grad(fn, wrt=wrt)(*args), want)
    direction = _direction(args[wrt])
    value, tangent = sg.jvp(fn, wrt=wrt)(*args, direction)
    assert_close(value, fn(*args), what="primal")
    assert_close(tangent, np.sum(want * direction), what="tangent")


def test_derived_function_inside_keeps_the_default_in_the_primal():
    value, _ = sg.jvp(calls_jvp_of_a_function_with_a_default)(0.4, 1.2, 1.0)
    assert_close(value, calls_jvp_of_a_function_with_a_default(0.4, 1.2), what="primal")


@pytest.mark.parametrize("fn, args", DERIVED_CALLS[:4], ids=[f.__name__ for f, _ in
                                                              DERIVED_CALLS[:4]])
def test_derived_function_called_inside_differentiates_at_second_order(fn, args):
    df = sg.grad(fn, wrt=0)
    want = numeric_gradient(lambda a, b: df(a, b), list(args), {}, 0)
    assert_close(sg.grad(df)(*args), want, rtol=1e-5, atol=1e-5)
    assert_close(sg.jvp(df)(*args, 1.0)[1], want, rtol=1e-5, atol=1e-5)


def jvp_of_vjp_with_a_default(x, s, c=2.0):
    return np.sin(x) * c * s


def test_transform_of_a_derived_function_with_a_default_orders_seed_and_default():
    pullback = sg.vjp(jvp_of_vjp_with_a_default)
    args = (0.7, 1.3, 0.9)  # x, s, seed; c keeps its default
    for wrt in (0, 2):
        want = numeric_gradient(pullback, list(args), {}, wrt)
        assert_close(sg.grad(pullback, wrt=wrt)(*args), want)
        assert_close(sg.jvp(pullback, wrt=wrt)(*args, 1.0)[1], want)


def makes_a_jacobian_inside(x):
    return np.sum(sg.jacobian(lambda_free_tanh)(x))  # <- error


def grads_a_nested_def(x):
    def local(v):
        return v * v
    return sg.grad(local)(x)  # <- error


def passes_a_short_tangent_tuple(t0):
    value, slope = sg.jvp(inner, wrt=(0, 1))(0.3, 0.8, (t0,))  # <- error
    return slope


REFUSED_DERIVED = [(makes_a_jacobian_inside, ["sg.jacobian"]),
                   (grads_a_nested_def, ["nested def"]),
                   (passes_a_short_tangent_tuple, ["tuple"])]


@pytest.mark.parametrize("fn, words", REFUSED_DERIVED, ids=[f.__name__ for f, _ in
                                                            REFUSED_DERIVED])
def test_unsupported_derived_call_inside_is_refused_with_advice(fn, words):
    error = compile_error(fn, X3.copy() if fn is makes_a_jacobian_inside else 0.5)
    assert_good_message(error, words, marked_line(fn), THIS_FILE)


def calls_grad_of_grad_inside(x):
    return sg.grad(sg.grad(lambda_free_tanh))(x) * x


def calls_the_decorator_form_inside(x, y):
    return sg.grad(wrt=1)(inner)(x, y) * x


@pytest.mark.parametrize("fn, args", [(calls_grad_of_grad_inside, (0.6,)),
                                      (calls_the_decorator_form_inside, (0.6, 1.4))])
def test_composed_and_decorator_transforms_inside_differentiate(fn, args):
    want = numeric_gradient(fn, list(args), {}, 0)
    assert_close(sg.grad(fn)(*args), want)
    assert_close(sg.jvp(fn)(*args, 1.0)[1], want)


def misspells_a_transform_option(x):
    return sg.grad(inner, wrtt=1)(x, 2.0)  # <- error


def test_bad_transform_call_inside_is_a_srcgrad_error():
    error = compile_error(misspells_a_transform_option, 0.5)
    assert_good_message(error, ["sg.grad"], marked_line(misspells_a_transform_option),
                        THIS_FILE)


def reads_an_element_then_writes(x):
    y = x.copy()
    c = y[0]
    y[1] = 3.0 * x[2]
    return np.sum(y * y) * c


def test_an_element_read_before_a_write_does_not_force_a_copy():
    # c is a NumPy scalar, not a view of y: the write may go in place
    text = sg.source(sg.grad(reads_an_element_then_writes), X3)
    assert "y[1] = " in text and "setitem(y" not in text
    check_derivatives(reads_an_element_then_writes, X3.copy())


# --- what an inlined derived function assumed, its caller assumes too --------------------------

def _callee(x):
    return x * x


def _cubed(x):
    return x * x * x


def uses_callee(x):
    return _callee(x)


GRAD_USES_CALLEE = sg.grad(uses_callee)


def calls_a_derived_function_of_uses_callee(x):
    return GRAD_USES_CALLEE(x) * x


def test_rebinding_a_callee_of_a_derived_function_called_inside_rebuilds(monkeypatch):
    sg.clear_cache()
    outer, x = sg.grad(calls_a_derived_function_of_uses_callee), 1.5
    for callee in (_callee, _cubed):
        monkeypatch.setattr(sys.modules[__name__], "_callee", callee)
        want = numeric_gradient(calls_a_derived_function_of_uses_callee, [x], {}, 0)
        assert_close(outer(x), want, rtol=1e-5)


def test_rebinding_a_callee_under_grad_of_grad_rebuilds(monkeypatch):
    sg.clear_cache()
    second, x = sg.grad(sg.grad(uses_callee)), 1.5
    assert_close(second(x), 2.0)  # (x**2)'' = 2
    monkeypatch.setattr(sys.modules[__name__], "_callee", _cubed)
    assert_close(second(x), 6.0 * x)  # (x**3)'' = 6x


def shifted_again(x, c=1.0):
    return np.sin(x) * x + c


def calls_jvp_of_shifted_again(x, t):
    value, slope = sg.jvp(shifted_again)(x, t)
    return value * slope


def test_changing_a_default_of_a_derived_function_called_inside_rebuilds(monkeypatch):
    sg.clear_cache()
    outer, args = sg.grad(calls_jvp_of_shifted_again), (0.4, 1.2)
    for default in ((1.0,), (-3.0,)):
        monkeypatch.setattr(shifted_again, "__defaults__", default)
        want = numeric_gradient(calls_jvp_of_shifted_again, list(args), {}, 0)
        assert_close(outer(*args), want)
        assert_close(sg.jvp(calls_jvp_of_shifted_again)(*args, 1.0)[0],
                     calls_jvp_of_shifted_again(*args), what="primal")
