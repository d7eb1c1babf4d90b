"""``np.sort`` and ``np.meshgrid`` differentiate (rules/sorting.py, rules/meshgrid.py):
reverse, forward and second order against central finite differences, and the runtime's
``np.sort``/``np.meshgrid`` on Tensors gives the same gradient. Inputs have no ties (the
module documents which element takes the gradient at a tie)."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

X6 = np.array([0.6, -1.3, 0.4, 1.1, -0.7, 0.9])
WEIGHTS = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 0.25])


def sort_then_weight(x):
    return np.sum(np.sort(x) * WEIGHTS * x)


def sort_rows_of_a_matrix(x):
    m = np.reshape(x, (2, 3)) ** 2
    return np.sum(np.sort(m, axis=0) * np.reshape(WEIGHTS, (2, 3))) + np.sort(m)[0, 2]


def sort_flattened(x):
    m = np.outer(x[:2], x[2:5])
    return np.sum(np.sort(m, axis=None) * WEIGHTS)


def meshgrid_xy(x):
    a, b = np.meshgrid(x[:2], x[2:])
    return np.sum(np.sin(a) * b ** 2)


def meshgrid_ij_three(x):
    a, b, c = np.meshgrid(x[:2], x[2:5], x[5:], indexing="ij")
    return np.sum(a * b * c + a ** 2)


def meshgrid_indexed(x):
    grid = np.meshgrid(x, x[:3] ** 2)
    return np.sum(grid[0] * grid[1]) + len(grid)


PROGRAMS = [sort_then_weight, sort_rows_of_a_matrix, sort_flattened, meshgrid_xy,
            meshgrid_ij_three, meshgrid_indexed]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_sort_and_meshgrid_differentiate(fn):
    check_all_modes(fn, X6)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_runtime_numpy_sort_and_meshgrid_match_the_compiler(fn):
    t = sg.tensor(X6, requires_grad=True)
    fn(t).backward()
    expected = numeric_gradient(fn, [X6], {}, 0)
    assert_close(t.grad.numpy(), expected)
    assert_close(sg.grad(fn)(X6), expected)


def sparse_meshgrid(x):
    a, b = np.meshgrid(x, x, sparse=True)  # <- error
    return np.sum(a * b)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_sparse_meshgrid_is_refused_with_advice(mode):
    assert_refused(sparse_meshgrid, X6, ["sparse=True"], mode)
