"""Module-level arrays read by a differentiated function (API.md §1: module globals, read).

A global ndarray is read by the derivative when it runs (API.md "Captured values"): the
function may loop over its rows or index it with a value known only at run time, under
``for``, ``while`` and ``if``, and the gradient with respect to the arguments matches
central finite differences. Rebinding the global to another array, or changing it in
place, is seen by the next call (no ``sg.clear_cache()``). More in test_captured.py.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg
from srcgrad.errors import SrcGradError

# the globals the functions below read (at module level so inspect.getsource sees them all)
W = np.arange(6.0).reshape(3, 2)
REBOUND = np.arange(6.0).reshape(3, 2)
MUTATED = np.arange(6.0).reshape(3, 2)
SCALAR = np.array(2.0)
TABLE = {"a": 1.0}
ROWS = (np.ones(2), np.arange(2.0))

X = np.array([0.7, -1.3])


def loop_rows(x):
    s = 0.0
    for row in W:
        s = s + np.sum(row * x)
    return s


def loop_rows_nonlinear(x):
    s = 0.0
    for row in W:
        s = s + np.sin(np.dot(row, x)) * x[0]
    return s


def loop_enumerate(x):
    s = 0.0
    for k, row in enumerate(W):
        s = s + k * np.sum(row * x * x)
    return s


def index_runtime(x, i):
    return np.sum(W[i] * x)


def index_runtime_slice(x, i):
    return np.sum(W[i:, 1] * x[1]) + np.sum(W[:i, 0] * x[0] ** 2)


def while_index(x, n):
    s = 0.0
    i = 0
    while i < n:
        s = s + np.sum(W[i] * np.tanh(x))
        i = i + 1
    return s


def while_if_index(x, n):
    s = 0.0
    i = 0
    while i < n:
        if np.sum(W[i] * x) > 0.0:
            s = s + np.sum(W[i] * x * x)
        else:
            s = s - np.sum(W[i] * x)
        i = i + 1
    return s


def if_on_global(x):
    if np.sum(W[0] * x) > 0.0:
        return np.sum(W * x[None, :] ** 2)
    return np.sum(W[1] * x)


def loop_if_rows(x):
    s = 0.0
    for row in W:
        if np.dot(row, x) > 0.0:
            s = s + np.dot(row, x) ** 2
        else:
            s = s + np.exp(np.dot(row, x))
    return s


def loop_rebound(x):
    s = 0.0
    for row in REBOUND:
        s = s + np.sum(row * x * x)
    return s


def index_rebound(x, i):
    return np.sum(REBOUND[i] * x)


def loop_mutated(x):
    s = 0.0
    for row in MUTATED:
        s = s + np.sum(row * x)
    return s


def loop_scalar(x):
    s = 0.0
    for v in SCALAR:
        s = s + v * x
    return s


def index_dict(x, i):
    return TABLE[i] * x


def index_tuple(x, i):
    return np.sum(ROWS[i] * x)


def _check(fn, args, wrt=0):
    got = sg.grad(fn, wrt=wrt)(*args)
    want = numeric_gradient(fn, args, {}, wrt)
    assert_close(got, want)
    return got


@pytest.mark.parametrize("fn", [loop_rows, loop_rows_nonlinear, loop_enumerate,
                                if_on_global, loop_if_rows])
@pytest.mark.parametrize("x", [X, -X, np.array([2.0, 0.5])])
def test_global_array_in_loops_and_branches(fn, x):
    _check(fn, (x,))


def test_loop_rows_exact():
    assert_close(sg.grad(loop_rows)(X), W.sum(axis=0))


@pytest.mark.parametrize("i", [0, 1, 2, -1])
def test_index_global_at_run_time(i):
    got = _check(index_runtime, (X, i))
    assert_close(got, W[i])


@pytest.mark.parametrize("i", [0, 1, 3])
def test_slice_global_at_run_time(i):
    _check(index_runtime_slice, (X, i))


@pytest.mark.parametrize("fn", [while_index, while_if_index])
@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("x", [X, -X])
def test_global_array_in_while(fn, n, x):
    _check(fn, (x, n))


def test_value_and_grad_in_while_with_if():
    value, grad = sg.value_and_grad(while_if_index)(X, 3)
    assert value == pytest.approx(while_if_index(X, 3))
    assert_close(grad, numeric_gradient(while_if_index, (X, 3), {}, 0))


def test_rebinding_a_global_array_rebuilds_the_derivative(monkeypatch):
    module = sys.modules[__name__]
    d_loop, d_index = sg.grad(loop_rebound), sg.grad(index_rebound)
    assert_close(d_loop(X), 2 * X * REBOUND.sum(axis=0))
    assert_close(d_index(X, 1), REBOUND[1])
    other = np.array([[1.0, -2.0], [3.0, 5.0], [0.5, 0.25], [7.0, 1.0]])  # another shape too
    monkeypatch.setattr(module, "REBOUND", other)
    assert_close(d_loop(X), 2 * X * other.sum(axis=0))
    assert_close(d_index(X, 3), other[3])
    _check(loop_rebound, (X,))
    monkeypatch.undo()
    assert_close(d_loop(X), 2 * X * REBOUND.sum(axis=0))
    assert_close(d_index(X, 1), REBOUND[1])


def test_mutating_a_global_array_in_place_is_seen_by_the_next_call():
    saved = MUTATED.copy()
    d_loop = sg.grad(loop_mutated)
    try:
        assert_close(d_loop(X), saved.sum(axis=0))
        MUTATED[0] = [100.0, -100.0]
        assert_close(d_loop(X), MUTATED.sum(axis=0))  # no sg.clear_cache() needed
        _check(loop_mutated, (X,))
    finally:
        MUTATED[...] = saved


def test_loop_over_0d_global_is_a_clear_error():
    with pytest.raises(SrcGradError, match="cannot loop over a 0-d array"):
        sg.grad(loop_scalar)(1.0)


def test_run_time_index_of_a_global_dict_names_the_type():
    with pytest.raises(SrcGradError, match="indexing a dict with a value known only at run"):
        sg.grad(index_dict, wrt=0)(1.0, "a")


def test_run_time_index_of_a_global_tuple_is_a_clear_error():
    with pytest.raises(SrcGradError, match="indexing a Python list or tuple"):
        sg.grad(index_tuple)(X, 1)
