"""Rearranging, gathering and differencing functions differentiate (issue 14):
``np.roll``, ``np.rot90``, ``np.flipud``, ``np.fliplr``, ``np.rollaxis``, ``np.tril``,
``np.triu``, ``np.diagonal`` (rules/rearrange.py), ``np.take``, ``np.take_along_axis``
(rules/gather.py) and ``np.diff`` (rules/differences.py).

Before they had rules a traced array passed to them was refused as a call without a rule.
Each program is checked against central finite differences in reverse, forward and second
order, on the runtime too (NumPy functions applied to Tensors), ``np.diff``'s ``prepend`` /
``append`` included.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

W = np.arange(12.0).reshape(3, 4) / 4.0 - 1.0
X = np.array([0.6, -1.3, 0.7, 1.1])


def _m(x):
    return np.outer(x[:3], x)  # a 3 x 4 matrix that depends on every element of x


def roll_by_tuples(x):
    return np.sum(np.roll(_m(x), (1, -2), axis=(0, 1)) * W)


def roll_flat(x):
    return np.sum(np.roll(_m(x), 5) ** 2 * W)


def rot90_three_times(x):
    return np.sum(np.rot90(_m(x), 3) ** 2 * W.T)


def rot90_other_axes(x):
    return np.sum(np.rot90(_m(x)[None], 1, axes=(2, 1))[0] * W.T)


def flipud_times_fliplr(x):
    return np.sum(np.flipud(_m(x)) * np.fliplr(_m(x)) * W)


def tril_and_triu(x):
    return np.sum(np.tril(_m(x), -1) * W + np.triu(_m(x), 1) ** 2)


def tril_of_a_vector(x):
    return np.sum(np.tril(x, 1) * np.outer(x, x))


def diagonal_with_offset(x):
    return np.sum(np.diagonal(_m(x), 1) ** 2) + np.sum(np.diagonal(_m(x)[None], 0, 2, 1))


def rollaxis_to_front(x):
    return np.sum(np.rollaxis(_m(x)[None], 2, 0)[:, 0, :] * W.T)


def take_repeated(x):
    return np.sum(np.take(x ** 2, np.array([2, 0, 2, 1])) * np.arange(1.0, 5.0))


def take_along_columns(x):
    return np.sum(np.take(_m(x), [3, 0, 3], axis=1) ** 2)


def take_along_axis_rows(x):
    idx = np.array([[0, 3, 3], [1, 1, 2], [2, 0, 0]])
    return np.sum(np.take_along_axis(_m(x), idx, axis=1) ** 2)


def diff_twice(x):
    return np.sum(np.diff(_m(x), 2) ** 2 * W[:, :2])


def diff_with_constant_ends(x):
    return np.sum(np.diff(x ** 2, prepend=1.5, append=[0.5, 2.0]) ** 2)


def diff_along_rows(x):
    return np.sum(np.diff(_m(x), axis=0, prepend=np.ones((1, 4))) * W ** 2)


PROGRAMS = [roll_by_tuples, roll_flat, rot90_three_times, rot90_other_axes,
            flipud_times_fliplr, tril_and_triu, tril_of_a_vector, diagonal_with_offset,
            rollaxis_to_front, take_repeated, take_along_columns, take_along_axis_rows,
            diff_twice, diff_with_constant_ends, diff_along_rows]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_rearranging_traced_arrays_differentiates(fn):
    check_all_modes(fn, X)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_rearranging_tensors_records_its_derivative(fn):
    x = sg.tensor(X, requires_grad=True)
    fn(x).backward()
    assert_close(x.grad.numpy(), numeric_gradient(fn, [X], {}, 0))


def diff_with_traced_ends(x):
    return np.sum(np.diff(x ** 2, 2, prepend=x[0] * 2.0, append=x[1:3]) ** 2)


def diff_with_traced_rows(x):
    return np.sum(np.diff(_m(x), axis=0, append=_m(x)[:1] ** 2) * W[:, :4] ** 2)


@pytest.mark.parametrize("fn", [diff_with_traced_ends, diff_with_traced_rows],
                         ids=lambda f: f.__name__)
def test_diff_with_traced_prepend_and_append_differentiates(fn):
    check_all_modes(fn, X)
    x = sg.tensor(X, requires_grad=True)
    fn(x).backward()
    assert_close(x.grad.numpy(), numeric_gradient(fn, [X], {}, 0))


def test_tensor_in_a_static_slot_of_a_numpy_function_is_read_as_its_values():
    # np.take's indices as an int Tensor: the runtime recursed into itself before
    x = sg.tensor(X, requires_grad=True)
    np.sum(np.take(x, sg.tensor([3, 0, 3])) ** 2).backward()
    assert_close(x.grad.numpy(), np.array([2 * X[0], 0.0, 0.0, 4 * X[3]]))


def write_into_flipud(x):
    a = x * 1.0
    b = np.flipud(a)
    b[0] = 0.0  # <- error
    return np.sum(a * x)


def write_into_rot90(x):
    a = np.outer(x, x)
    b = np.rot90(a)
    b[0] = 0.0  # <- error
    return np.sum(a * x)


def write_into_atleast_2d(x):
    a = x * 1.0
    b = np.atleast_2d(a)
    b[0, 0] = 3.0  # <- error
    return np.sum(a * x)


def write_into_flip(x):
    a = x * 1.0
    b = np.flip(a)
    b[0] = 0.0  # <- error
    return np.sum(a * x)


def write_into_fliplr(x):
    a = np.outer(x, x)
    b = np.fliplr(a)
    b[0, 0] = 0.0  # <- error
    return np.sum(a * x)


def write_into_rollaxis(x):
    a = np.outer(x, x)
    b = np.rollaxis(a, 1)
    b[0, 1] = 0.0  # <- error
    return np.sum(a * x)


def write_into_diagonal_source(x):
    a = np.outer(x, x)
    d = np.diagonal(a)  # NumPy's read-only view of a
    a[0, 0] = 0.0  # <- error
    return np.sum(d * x)


def write_into_diff_of_order_zero(x):
    a = x * 1.0
    b = np.diff(a, 0)  # n=0: NumPy returns a itself
    b[0] = 0.0  # <- error
    return np.sum(a * x)


@pytest.mark.parametrize("fn", [write_into_flipud, write_into_rot90, write_into_atleast_2d,
                                write_into_flip, write_into_fliplr, write_into_rollaxis,
                                write_into_diagonal_source, write_into_diff_of_order_zero],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_write_into_a_numpy_view_is_refused_not_silently_wrong(fn, mode):
    # NumPy returns a view: the write changes `a`, which the derivative read as unchanged
    assert_refused(fn, X, ["view", "shares its array"], mode)
