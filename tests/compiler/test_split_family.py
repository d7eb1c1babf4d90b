"""Tuple-returning NumPy functions differentiate in the Python forms that take them apart
(rules/multi.py, rules/splitting.py, frontend/multicalls.py): unpacking ``a, b, c =
np.split(x, 3)``, indexing the result, iterating over it, ``len()``, starred unpacking and
passing the pieces on. Each program is checked against central finite differences in
reverse, forward and second order. Calls whose number of items is not known when the
function is compiled are refused naming the function, the line and what to write instead;
before, every one of these was refused as "tuple unpacking of an array of unknown shape".
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes

import srcgrad as sg

X6 = np.array([0.6, -1.3, 0.4, 1.1, -0.7, 0.9])


def unpack_three(x):
    q, k, v = np.split(x, 3)
    return np.sum(q * k + np.sin(v) * q)


def index_the_result(x):
    pieces = np.split(x, [1, 4])
    return np.sum(pieces[1] ** 2) * pieces[0][0] + np.sum(pieces[-1])


def iterate_the_pieces(x):
    total = 0.0
    for piece in np.array_split(x, 4):
        total = total + np.prod(piece) * len(piece)
    return total


def starred_unpacking(x):
    first, *rest = np.split(x, 3)
    return np.sum(first * rest[0] * rest[1]) + len(rest)


def pass_pieces_on(x):
    m = np.reshape(x, (2, 3))
    left, right = np.hsplit(m, [1])
    return np.sum(np.concatenate([right, left], axis=1) * np.cos(m))


def vsplit_rows(x):
    m = np.outer(x, x[:2])
    a, b, c = np.vsplit(m, 3)
    return np.sum(a * b - c ** 2)


def dsplit_depth(x):
    m = np.reshape(x, (1, 3, 2))
    a, b = np.dsplit(m, 2)
    return np.sum(np.exp(a) * b)


def split_along_last_axis(x):
    m = np.reshape(x, (3, 2))
    a, b = np.split(m, 2, axis=-1)
    return np.sum(a @ b.T)


def pieces_through_a_helper(x):
    def norm_of(parts):
        return np.sqrt(sum(np.sum(p * p) for p in parts))
    return norm_of(np.split(x, 2)) * x[0]


PROGRAMS = [unpack_three, index_the_result, iterate_the_pieces, starred_unpacking,
            pass_pieces_on, vsplit_rows, dsplit_depth, split_along_last_axis,
            pieces_through_a_helper]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_split_pieces_differentiate(fn):
    check_all_modes(fn, X6)


def unpack_too_many_names(x):
    a, b = np.split(x, 3)  # <- error
    return np.sum(a * b)


def unstack_unknown_length(x):
    a, b = np.unstack(x)  # <- error
    return a * b


def pieces_counted_at_run_time(x):
    n = int(np.sum(x > 0))
    a, b = np.split(x, n)  # <- error
    return np.sum(a * b)


def hsplit_of_a_number(x):
    a, b = np.hsplit(x[0], 2)  # <- error
    return a * b


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_unpacking_a_split_into_the_wrong_number_of_names_says_how_many_items(mode):
    assert_refused(unpack_too_many_names, X6, ["np.split(...) returns a list of 3 items"], mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_unstack_is_refused_as_its_length_is_unknown_when_compiling(mode):
    assert_refused(unstack_unknown_length, X6, ["np.unstack"], mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_split_count_known_only_at_run_time_is_refused(mode):
    assert_refused(pieces_counted_at_run_time, X6, ["np.split", "number of pieces"], mode)


def test_hsplit_of_a_0d_value_is_refused_naming_the_function():
    assert_refused(hsplit_of_a_number, X6, ["np.hsplit"], "reverse")


def unequal_division(x):
    a, b, c, d = np.split(x, 4)
    return np.sum(a * b * c * d)


def test_split_that_does_not_divide_raises_numpys_error_when_run():
    with pytest.raises(ValueError, match="equal division"):
        sg.grad(unequal_division)(X6)
