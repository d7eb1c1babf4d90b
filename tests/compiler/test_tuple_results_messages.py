"""A tuple-returning call used where an array is expected is refused naming the call and
how many items it returns (never "array of unknown shape", never an internal error); a
NumPy function known to return a tuple but without item rules (``np.modf``,
``np.divmod``) unpacks, computes where nothing is differentiated through it, and is
refused naming the function where something is (rules/multi.py ``declare_tuple``)."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([0.6, -1.3, 0.4, 1.1])
A0 = np.array([[2.0, 0.3], [0.3, 1.0]])


def attribute_of_pieces(x):
    pieces = np.split(x, 2)
    return np.sum(pieces.T)  # <- error


def method_of_a_grid(x):
    grid = np.meshgrid(x, x)
    return grid.sum()  # <- error


def negated_pieces(x):
    pieces = np.split(x, 2)
    return np.sum(-pieces)  # <- error


def pieces_plus_a_number(x):
    return np.sum(np.split(x, 2) + 1.0)  # <- error


def declared_tuple_into_three_names(x):
    w, v, extra = np.linalg.eig(A0 * x[0])  # <- error
    return np.sum(w)


def through_modf_without_a_rule(x):  # (np.linalg.eig has item rules now)
    fraction, whole = np.modf(x * 3.0)  # <- error
    return np.sum(fraction) * x[1]


def through_divmod_without_a_rule(x):
    q, r = np.divmod(x, 0.3)  # <- error
    return np.sum(r)


CASES = [(attribute_of_pieces, "np.split(...) returns a list of 2 items, not an array"),
         (method_of_a_grid, "np.meshgrid(...) returns a tuple of 2 items, not an array"),
         (negated_pieces, "np.split(...) returns a list of 2 items, not an array"),
         (pieces_plus_a_number, "np.split(...) returns a list of 2 items, not an array"),
         (declared_tuple_into_three_names, "np.linalg.eig(...) returns a tuple of 2 items"),
         (through_modf_without_a_rule, "np.modf"),
         (through_divmod_without_a_rule, "np.divmod")]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__)
def test_tuple_result_used_as_an_array_is_refused_naming_the_call(case, mode):
    fn, words = case
    assert_refused(fn, X, [words], mode)


def eigh_of_a_value_not_differentiated(x, scale):
    w, v = np.linalg.eigh(A0 * scale)
    q, r = np.divmod(scale, 0.3)
    return np.sum(w * x[:2]) + np.sum(v[0] * x[2:]) * r


def test_declared_tuple_result_unpacks_where_nothing_is_differentiated_through_it():
    expected = numeric_gradient(eigh_of_a_value_not_differentiated, [X, 1.7], {}, 0)
    assert_close(sg.grad(eigh_of_a_value_not_differentiated)(X, 1.7), expected)


def returns_the_pieces(x):
    return np.split(x * x, 2)


def test_a_function_returning_the_pieces_differentiates():
    seed = [np.array([1.0, -2.0]), np.array([0.5, 3.0])]
    result = sg.vjp(returns_the_pieces)(X, seed)
    gradient = result[1] if isinstance(result, tuple) else result
    assert_close(gradient, 2 * X * np.concatenate(seed))
