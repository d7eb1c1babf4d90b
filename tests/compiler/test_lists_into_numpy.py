"""Python lists and tuples of traced values passed where NumPy takes an array.

API.md: such a list "is the array ``np.asarray`` would make of it, and differentiates as
such", in every NumPy call with a rule, in ufuncs, in ``math.fsum``/``math.prod`` and the
builtins ``sum``/``min``/``max``; and "right or refused": a call with no rule that a traced
value reaches inside a list, tuple or dict raises ``sg.SrcGradError`` at compile time.

Every program is checked against central finite differences in reverse mode
(``sg.grad``), forward mode (``sg.jvp``, several tangents) and at second order (the
Hessian against finite differences of the checked gradient).
"""

from __future__ import annotations

import functools
import itertools
import math
import operator

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close

import srcgrad as sg

# --- lists into NumPy functions with a rule -------------------------------------------------

def sum_of_list(x):
    return np.sum([x, 3 * x])


def mean_of_list(x):
    return np.mean([x, x + 2])


def prod_of_list(x):
    return np.prod([x, x + 2, 3.0])


def max_of_tuple(x):
    return np.max((x * x, 2.0 - x, 0.5))


def min_of_tuple_axis(x):
    return np.sum(np.min((x, 1.0 - x), axis=0))


def ufunc_of_list(x):
    return np.sum(np.exp([x, 2 * x]))


def binary_ufunc_of_lists(x):
    return np.sum(np.maximum([x, -x], [0.25, x * x]))


def dot_of_lists(x):
    return np.dot([x, 1.0], [2.0, x])


def norm_of_list(x):
    return np.linalg.norm([x[0] - 1, x[1] + 2])


def nested_list_det(x):
    return np.linalg.det([[x, 1.0], [x * x, 3.0]])


def nested_list_matmul(x):
    m = [[x[0], x[1]], [x[1] * x[1], 2.0]]
    return np.sum(np.matmul(m, x))


def list_of_arrays_mean_axis(x):
    return np.sum(np.mean([x, 2 * x, np.sin(x)], axis=0) ** 2)


def list_inside_concatenate(x):
    return np.sum(np.concatenate([[x[0] * x[1], 1.0], x]) ** 2)


def list_into_einsum(x):
    return np.einsum("i,i->", [x[0], x[1] * x[1]], x)


def list_into_where(x):
    return np.sum(np.where([True, False], [x[0], x[1]], x * x))


def list_into_var(x):
    return np.var([x[0], x[1] * 2.0, np.exp(x[0])])


def list_of_scalars_times_array(x):
    return np.sum(np.multiply((x[0], x[1]), x) ** 2)


FLOAT_PROGRAMS = [sum_of_list, mean_of_list, prod_of_list, max_of_tuple, min_of_tuple_axis,
                  ufunc_of_list, binary_ufunc_of_lists, dot_of_lists, nested_list_det]
ARRAY_PROGRAMS = [norm_of_list, nested_list_matmul, list_of_arrays_mean_axis,
                  list_inside_concatenate, list_into_einsum, list_into_where, list_into_var,
                  list_of_scalars_times_array]


@pytest.mark.parametrize("fn", FLOAT_PROGRAMS, ids=lambda f: f.__name__)
def test_list_of_traced_floats_passed_to_numpy_differentiates(fn):
    check_all_modes(fn, 0.7)


@pytest.mark.parametrize("fn", ARRAY_PROGRAMS, ids=lambda f: f.__name__)
def test_list_of_traced_array_values_passed_to_numpy_differentiates(fn):
    check_all_modes(fn, np.array([0.6, -0.8]))


def test_list_into_numpy_differentiates_for_numpy_scalar_and_float32():
    for x in (np.float64(0.7), np.float32(0.7)):
        sg.clear_cache()
        g = sg.grad(sum_of_list)(x)
        assert type(g) is type(x)
        assert_close(g, 4.0, rtol=1e-6)


def test_list_into_numpy_is_the_array_numpy_builds():
    def stacked(x):
        a = np.asarray([x[0], 2.0 * x[1]])
        return np.sum(np.sin([x[0], 2.0 * x[1]]) - np.sin(a))

    sg.clear_cache()
    value, grad = sg.value_and_grad(stacked)(np.array([0.3, 0.9]))
    assert value == 0.0
    assert_close(grad, np.zeros(2))


def test_constant_lists_still_compile_to_constants():
    def weighted(x):
        return np.dot(x, [1.0, 2.0]) + np.sum([3.0, 4.0])

    check_all_modes(weighted, np.array([0.5, 1.5]), second_order=False)


# --- lists against module-level arrays (NumPy reads the list as an array) ------------------

W = np.array([[1.0, 2.0], [3.0, -4.0]])
V = np.array([0.5, -1.5])


def list_matmul_global(x):
    return np.sum(np.sin([x[0], x[1] * x[1]] @ W))


def global_matmul_list(x):
    return np.sum(np.exp(W @ [x[0], x[1] * x[1]]))


def global_times_list(x):
    y = V * [x[0], x[1] * x[1]]
    return np.sum(y * x)


def list_minus_global_then_ufunc(x):
    return np.sum(np.tanh([x[1], x[0] * 2.0] - V))


def global_method_with_list(x):
    return np.sum(W.dot([x[0], x[1] * x[1]]) ** 2)


def global_compared_with_list(x):
    return np.sum(np.where(V < [x[0], x[1]], x * x, x))


@pytest.mark.parametrize("fn", [list_matmul_global, global_matmul_list, global_times_list,
                                list_minus_global_then_ufunc, global_method_with_list,
                                global_compared_with_list], ids=lambda f: f.__name__)
def test_list_against_a_module_level_array_is_the_array_numpy_reads(fn):
    check_all_modes(fn, np.array([0.3, 0.7]))


def numpy_scalar_times_list(x):
    return np.sum(np.float64(2.0) * [x[0], x[1]])  # <- error


def test_list_times_a_float64_scalar_raises_as_python_does():
    with pytest.raises(TypeError):
        numpy_scalar_times_list(np.array([0.3, 0.7]))
    assert_refused(numpy_scalar_times_list, np.array([0.3, 0.7]), ["operand"], "reverse")


# --- lists written into arrays, held in dicts ------------------------------------------------

def list_written_into_a_slice(x):
    y = np.zeros(3)
    y[0:2] = [x, 2 * x]
    return np.sum(y * y)


def tuple_added_into_a_slice(x):
    y = np.ones(3)
    y[1:] += (x * x, np.sin(x))
    return np.sum(y * y)


def list_inside_a_local_dict(x):
    d = {"a": x, "b": [x, 3.0]}
    return np.sum(d["b"]) * d["a"]


@pytest.mark.parametrize("fn", [list_written_into_a_slice, tuple_added_into_a_slice,
                                list_inside_a_local_dict], ids=lambda f: f.__name__)
def test_list_written_into_an_array_or_kept_in_a_dict_differentiates(fn):
    check_all_modes(fn, 0.7)


# --- the recurrent pattern: a list appended in a loop, then reduced -------------------------

def losses_fixed_horizon(x):
    losses = []
    h = x
    for t in range(4):
        h = np.tanh(h * 1.3 + 0.1 * t)
        losses.append((h - 0.5) ** 2)
    return np.mean(losses)


def test_losses_appended_over_a_fixed_horizon_then_averaged_differentiate():
    check_all_modes(losses_fixed_horizon, 0.4)


def losses_run_time_horizon(xs):
    losses = []
    h = 0.3
    for t in range(xs.shape[0]):
        h = np.tanh(h * xs[t] + 0.2)
        losses.append((h - 0.5) ** 2)
    return np.mean(losses)


def losses_run_time_reduced_several_ways(xs):
    losses = []
    for t in range(xs.shape[0]):
        losses.append(np.sin(xs[t]) * xs[t])
    return (sum(losses) + max(losses) + min(losses) + math.fsum(losses)
            + math.prod(losses) + np.linalg.norm(losses))


def run_time_list_read_twice(xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(xs[t] ** 2)
    return np.sum(np.stack(hs)) + np.max(np.stack(hs)) + np.var(hs)


def run_time_list_of_vectors(x, w):
    hs = []
    for t in range(w.shape[0]):
        hs.append(x * w[t])
    return np.sum(np.mean(hs, axis=0) ** 2)


@pytest.mark.parametrize("fn", [losses_run_time_horizon, losses_run_time_reduced_several_ways,
                                run_time_list_read_twice], ids=lambda f: f.__name__)
def test_list_appended_over_a_run_time_horizon_differentiates(fn):
    check_all_modes(fn, np.array([0.6, -0.9, 1.3]))


def test_list_of_arrays_appended_over_a_run_time_horizon_into_mean_axis():
    def f(x):
        return run_time_list_of_vectors(x, np.array([0.5, -1.0, 2.0]))

    check_all_modes(f, np.array([0.6, -0.9]), second_order=False)


def run_time_lists_inside_a_list(xs):
    hs, gs = [], []
    for t in range(xs.shape[0]):
        hs.append(xs[t] ** 2)
        gs.append(np.sin(xs[t]))
    return (np.sum(np.concatenate([hs, gs]) ** 2) + np.mean([hs, gs])
            + np.sum(np.array([hs, gs]) * np.array([[1.0], [2.0]])))


def test_run_time_lists_inside_a_list_are_the_arrays_they_make():
    check_all_modes(run_time_lists_inside_a_list, np.array([0.6, -0.9, 1.3]))


def run_time_list_as_the_arrays_of_concatenate(xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(xs[t:t + 1] * 2.0)
    return np.sum(np.concatenate(hs))  # <- error


def test_run_time_list_as_a_variadic_sequence_is_refused():
    assert_refused(run_time_list_as_the_arrays_of_concatenate, np.array([0.5, 1.0]),
                   ["run-time trip count"], "reverse")


def user_function_given_a_run_time_list(xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(xs[t])
    return pair_sum(hs)  # <- error


def test_run_time_list_given_to_a_function_that_is_not_numpy_is_refused():
    assert_refused(user_function_given_a_run_time_list, np.array([0.5, 1.0]), ["list"],
                   "reverse")


# --- builtins over lists ----------------------------------------------------------------------

def builtin_sum_of_list(x):
    return sum([x, 2 * x, x * x])


def builtin_max_of_list(x):
    return max([x * x, 3 * x, 0.1])


def builtin_min_of_list(x):
    return min([x * x, 3 * x, 5.0])


def builtin_max_with_key(x):
    return max([x, -2 * x, x * x - 3.0], key=abs)


def builtin_min_with_key(x):
    return min((x - 1.0, np.sin(x), 0.25 * x), key=lambda v: (v - 0.1) ** 2)


def fsum_of_list(x):
    return math.fsum([x, 2 * x, x * x, 1e-17])


def prod_of_list_math(x):
    return math.prod([x, x + 1.0, 3.0])


def prod_of_list_with_start(x):
    return math.prod((x, np.sin(x)), start=2.0)


def test_fsum_of_a_list_keeps_its_exact_rounding_and_type():
    def f(x):
        return math.fsum([x, 1e-17, -x])

    sg.clear_cache()
    value, grad = sg.value_and_grad(f)(0.1)
    assert value == math.fsum([0.1, 1e-17, -0.1]) and type(grad) is float
    assert grad == 0.0


@pytest.mark.parametrize("fn", [builtin_sum_of_list, builtin_max_of_list, builtin_min_of_list,
                                builtin_max_with_key, builtin_min_with_key, fsum_of_list, prod_of_list_math, prod_of_list_with_start],
                         ids=lambda f: f.__name__)
def test_builtin_reduction_over_a_list_of_traced_values_differentiates(fn):
    check_all_modes(fn, 0.7)


def test_builtin_max_with_key_picks_what_python_picks():
    for x in (0.7, -0.7, 1.9, -1.9):
        sg.clear_cache()
        value, _ = sg.value_and_grad(builtin_max_with_key)(x)
        assert float(value) == builtin_max_with_key(x)


def max_of_array_with_key(x):
    return max(x, key=abs)  # <- error


def test_builtin_max_of_an_array_with_key_is_refused():
    assert_refused(max_of_array_with_key, np.array([0.5, -1.0]), ["key"], "reverse")


# --- refusals -------------------------------------------------------------------------------

def block_has_no_rule(x):  # (np.select has a rule now)
    return np.sum(np.block([x, x * x]))  # <- error


def reduce_over_list(x):
    return functools.reduce(operator.add, [x, 2 * x])  # <- error


def reduce_over_tuple(x):
    return functools.reduce(operator.mul, (x, np.sin(x)))  # <- error


def dict_into_call_without_rule(x):
    return x * len(list(itertools.chain({"a": x * 2})))  # <- error


def dict_read_by_operator(x):  # (operator's functions run while compiling, as Python)
    return operator.getitem({"a": x * 2}, "a") + operator.itemgetter("b")({"b": x ** 2})


def traced_static_argument(x):
    return np.var(x, ddof=x[0] * 0.0)  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_call_without_rule_reached_by_a_list_is_refused(mode):
    assert_refused(block_has_no_rule, np.array([0.5, -1.0]), ["np.block"], mode)
    assert_refused(reduce_over_list, 0.5, ["reduce"], mode)
    assert_refused(reduce_over_tuple, 0.5, ["reduce"], mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_dict_holding_traced_values_passed_to_a_call_is_refused(mode):
    assert_refused(dict_into_call_without_rule, 0.5, ["dict"], mode)


def test_operator_functions_on_a_compile_time_dict_differentiate():
    check_all_modes(dict_read_by_operator, 0.5)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_traced_value_as_static_argument_is_refused(mode):
    assert_refused(traced_static_argument, np.array([0.5, -1.0]), ["ddof", "np.var"], mode)


def scaled(x, *, scale):
    return x * scale


sg.defvjp(scaled, lambda g, out, x, *, scale: g * scale)
sg.defjvp(scaled, lambda t, out, x, *, scale: t * scale)


def pair_sum(xs):
    return xs[0] + xs[1]


sg.defvjp(pair_sum, lambda g, out, xs: g)
sg.defjvp(pair_sum, lambda t, out, xs: t)


def user_rule_keyword_traced(x):
    return scaled(x, scale=x * 2.0)  # <- error


def user_rule_given_a_list(x):
    return pair_sum([x, 2.0 * x])  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_traced_keyword_of_a_user_rule_is_refused(mode):
    assert_refused(user_rule_keyword_traced, 0.5, ["scale"], mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_traced_list_given_to_a_user_rule_is_refused(mode):
    assert_refused(user_rule_given_a_list, 0.5, ["list"], mode)


def test_user_rule_with_constant_keyword_still_differentiates():
    def f(x):
        return scaled(x, scale=3.0) * x

    check_all_modes(f, 0.5, second_order=False)


def test_refused_call_whose_result_is_unused_compiles():
    def f(x):
        _unused = np.block([x, x])  # (np.select has a rule now)
        return np.sum(x * x)

    check_all_modes(f, np.array([0.5, -1.0]), second_order=False)

