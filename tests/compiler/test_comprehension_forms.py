"""What users write with comprehensions, generator expressions and the loops they stand
for (issue 14 item 3), each checked against central finite differences in reverse
(``sg.grad``), forward (``sg.jvp``) and second order (``sg.hessian``).

A list or tuple of run-time values appended in a run-time loop (``[[r[0], r[1]] for r in
X]``, ``out.append((a, b))``) once lost its derivative: the packed item had no adjoint and
no tangent, so the gradient was silently zero. Now item k of the container's cotangent
(a list, or a row of the array ``np.array`` made of it) flows to item k.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])


def check_every_mode(fn, x):
    sg.clear_cache()
    want = numeric_gradient(fn, (x,), None, 0)
    assert np.any(want != 0), "a test whose gradient is 0 cannot fail"
    assert_close(sg.grad(fn)(x), want, rtol=1e-5)
    tangent = np.linspace(-1.0, 1.2, x.size).reshape(x.shape)
    value, d = sg.jvp(fn)(x, tangent)
    assert_close(value, fn(x), what="value")
    assert_close(d, directional_derivative(fn, (x,), {0: tangent}), rtol=1e-5)
    assert_close(sg.hessian(fn)(x), numeric_hessian(sg.grad(fn), (x,)), rtol=1e-4,
                 atol=1e-5)


def list_of_lists_over_rows(X):
    return np.sum(np.array([[r[0], r[1] * r[2]] for r in X]) ** 2)


def tuples_appended_in_a_loop_over_rows(X):
    out = []
    for r in X:
        out.append((r[0], np.sin(r[1])))
    return np.sum(np.array(out) ** 3)


def pairs_of_rows_stacked(X):
    return np.sum(np.stack([np.array([r[0] * r[2], r[1]]) for r in X]) * X[0, 0])


PACKED = [list_of_lists_over_rows, tuples_appended_in_a_loop_over_rows, pairs_of_rows_stacked]


@pytest.mark.parametrize("fn", PACKED, ids=[f.__name__ for f in PACKED])
def test_lists_of_traced_values_built_in_a_run_time_loop_differentiate(fn):
    check_every_mode(fn, X)


W = np.array([0.5, -0.3, 0.9])
PARAMS = {"a": np.array([0.3, 0.4, -0.2]), "b": np.array([1.0, -2.0, 0.5])}
T3 = np.random.default_rng(0).standard_normal((3, 2, 2))


def matvec_generator_in_sum(X):
    return sum(W @ x for x in X) ** 2


def zip_and_enumerate(X):
    return sum(i * a * b for i, (a, b) in enumerate(zip(X[0], X[1]))) + np.sum(
        np.array([a - b for a, b in zip(X[0], X[1])]) ** 2)


def max_and_min_of_a_generator(X):
    return max(np.sum(r ** 2) for r in X) + min([np.sum(np.sin(r)) for r in X])


def nested_over_ranges_with_a_filter(X):
    return np.sum(np.array([[X[i, j] * X[1 - i, j] for j in range(3) if j != 1]
                            for i in range(2)]) ** 2)


def dict_comprehension_over_items(X):
    scaled = {k: v * X[0, 0] + X[1] for k, v in PARAMS.items()}
    return np.sum(scaled["a"] * scaled["b"])


def dict_comprehension_over_a_range(X):
    powers = {i: X[0, i] ** (i + 1) for i in range(3)}
    return powers[0] + powers[1] * powers[2]


def dict_comprehension_over_a_dict_argument_built_inside(X):
    rows = {"u": X[0], "v": X[1]}
    doubled = {name: 2.0 * row for name, row in rows.items() if name != "w"}
    return np.sum(doubled["u"] * np.cos(doubled["v"]))


def set_comprehension_of_indices(X):
    picked = {i % 3 for i in range(5)}
    return sum(X[1, i] ** 2 for i in sorted(picked))


def concatenate_rows_built_at_run_time(X):
    return np.sum(np.concatenate([row * row[0] for row in X]) ** 2 * np.arange(6))


def concatenate_matrices_along_axis_1(T):
    return np.sum(np.concatenate([m * m[0, 0] for m in T], axis=1) ** 2 * np.arange(6))


def concatenate_matrices_along_axis_minus_2(T):
    return np.sum(np.concatenate([np.tanh(m) for m in T], axis=-2) ** 2 * np.arange(2))


FORMS = [(matvec_generator_in_sum, X), (zip_and_enumerate, X),
         (max_and_min_of_a_generator, X), (nested_over_ranges_with_a_filter, X),
         (dict_comprehension_over_items, X), (dict_comprehension_over_a_range, X),
         (dict_comprehension_over_a_dict_argument_built_inside, X),
         (set_comprehension_of_indices, X), (concatenate_rows_built_at_run_time, X),
         (concatenate_matrices_along_axis_1, T3), (concatenate_matrices_along_axis_minus_2, T3)]


@pytest.mark.parametrize("fn,x", FORMS, ids=[f.__name__ for f, _ in FORMS])
def test_comprehension_forms_differentiate_in_every_mode(fn, x):
    check_every_mode(fn, x)


def dict_comprehension_over_rows_known_at_run_time(X):
    named = {float(r[0]): r for r in X}  # <- error
    return np.sum(named[0.3])


def dict_comprehension_keyed_by_run_time_values(X):
    named = {X[0, i]: i for i in range(3)}  # <- error
    return named


def returns_a_list_built_at_run_time(X):
    return [r * 2.0 for r in X]  # <- error


REFUSED = [(dict_comprehension_over_rows_known_at_run_time, ["dict comprehension"]),
           (dict_comprehension_keyed_by_run_time_values, ["dict comprehension", "keys"]),
           (returns_a_list_built_at_run_time, ["np.stack"])]


@pytest.mark.parametrize("fn,words", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_comprehensions_srcgrad_cannot_give_a_derivative_are_refused_at_their_line(fn, words):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.vjp(fn)(X, np.ones(2))
    text = str(info.value)
    lines, first = inspect.getsourcelines(fn)
    line = first + next(i for i, t in enumerate(lines) if "# <- error" in t)
    assert f"test_comprehension_forms.py:{line}:" in text, text
    assert all(w in text for w in words), text
    assert info.value.advice, text


def dict_comprehension_returned(X):
    return {k: v * X[0] + X[1] ** 2 for k, v in PARAMS.items()}


def test_a_dict_comprehension_returned_is_a_structured_result_in_both_modes():
    sg.clear_cache()
    seed = {"a": np.array([1.0, -0.5, 2.0]), "b": np.array([0.3, 0.2, -1.0])}

    def paired(x):
        out = dict_comprehension_returned(x)
        return np.sum(out["a"] * seed["a"]) + np.sum(out["b"] * seed["b"])
    assert_close(sg.vjp(dict_comprehension_returned)(X, seed),
                 numeric_gradient(paired, (X,), None, 0), rtol=1e-5)
    u = np.linspace(-1.0, 1.2, X.size).reshape(X.shape)
    _, tangent = sg.jvp(dict_comprehension_returned)(X, u)
    want = directional_derivative(lambda x: tuple(dict_comprehension_returned(x).values()),
                                  (X,), {0: u})
    for got, expected in zip(tangent.values(), want):
        assert_close(got, expected, rtol=1e-5)


def squares_of_a_dict_argument(p):
    squared = {name: value ** 2 for name, value in p.items()}
    return sum(np.sum(np.sin(v)) for v in squared.values())


def test_a_dict_comprehension_over_a_dict_argument_gives_a_dict_gradient():
    sg.clear_cache()
    g = sg.grad(squares_of_a_dict_argument)(PARAMS)
    assert set(g) == set(PARAMS)
    for name in PARAMS:
        def of_one(v, name=name):
            return squares_of_a_dict_argument({**PARAMS, name: v})
        assert_close(g[name], numeric_gradient(of_one, (PARAMS[name],), None, 0), rtol=1e-5)
