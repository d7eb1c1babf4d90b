"""Bugs the fuzzer and the reliability tests found, each reduced to a minimal reproducer.

While a bug is open its test is a strict xfail naming it; the owner's fix turns the xfail
into an error, and then the mark (and the matching entry of ``tests/fuzz/known.py``) is
removed, leaving a named regression test.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg


def _sum_then_loop(x, y):
    total = np.sum(x)  # a NumPy scalar reaches the result...
    acc = 0.5
    for i in range(1):  # ...and y's adjoint is accumulated inside a loop
        acc = acc - y
    return total + acc


def test_float_gradient_through_a_loop_stays_a_python_float():
    """Was: np.float64 for a float argument whose adjoint accumulates in a loop."""
    gradient = sg.grad(_sum_then_loop, wrt=1)(np.array([0.2, 0.1]), 0.7)
    assert gradient == -1.0
    assert type(gradient) is float


def test_runtime_augmented_subscript_write_into_a_no_grad_array_keeps_the_gradient():
    """Was: x's gradient 0 (the view written by += kept a stale requires_grad=False)."""
    x = sg.tensor(0.5, dtype=sg.float64, requires_grad=True)
    z = sg.zeros(3, dtype=sg.float64)
    z[0] += x
    z.sum().backward()
    assert x.grad is not None and x.grad.item() == 1.0


def _square_in_a_branch(x):
    if x > 5.0:
        y = np.cos(x)
    else:
        y = x ** 2  # the power rule's np.where makes the adjoint an np.float64
    return y * 2.0


def test_float_gradient_through_a_branch_stays_a_python_float():
    """Was: np.float64 for a float argument differentiated inside if/else."""
    gradient = sg.grad(_square_in_a_branch)(0.5)
    assert gradient == 2.0
    assert type(gradient) is float


def _early_return_of_a_float(x, y):
    if y < 0.5:
        return np.sum(x) + y
    return np.sum(x) * y


def test_float_gradient_through_an_early_return_stays_a_python_float():
    """Was: a 0-d ndarray for a float argument, through an early return."""
    gradient = sg.grad(_early_return_of_a_float, wrt=1)(np.array([0.5, 0.2]), 0.3)
    assert gradient == 1.0
    assert type(gradient) is float


def _loop_after_early_return(x):
    if np.sum(x) > 0.0:
        return np.sum(x)
    acc = x
    for i in range(2):
        acc = acc * x
    return np.sum(acc)


def test_loop_after_an_early_return_differentiates():
    """Was: UnboundLocalError, local variable 'tape' (fixed by the compiler's owner)."""
    x = np.array([-0.5, 0.2])
    np.testing.assert_allclose(sg.grad(_loop_after_early_return)(x), 3.0 * x ** 2)


def _write_into_new_zeros(x):
    z = np.zeros((3,))
    z[0] = x
    return np.sum(z)


def test_write_into_a_new_constant_array_differentiates():
    """Was: refused as 'this subscript assignment is not supported'."""
    assert sg.grad(_write_into_new_zeros)(0.3) == 1.0


def _guarded_index(x):
    s = np.sum(x)
    if len(x) > 3 and x[3] > 0.0:  # x[3] must not be evaluated when len(x) <= 3
        s = s * 2.0
    return s


def _guarded_index_expression(x):
    y = x * 2.0 if x.shape[0] > 5 and x[5] > 0.0 else x * 3.0
    return np.sum(y)


def test_and_in_an_if_condition_short_circuits():
    """Was: both sides of `and` evaluated (np.logical_and), IndexError."""
    np.testing.assert_allclose(sg.grad(_guarded_index)(np.array([0.5, 0.2])), [1.0, 1.0])


def test_and_in_a_conditional_expression_short_circuits():
    """Was: both sides of `and` evaluated in a conditional expression."""
    np.testing.assert_allclose(sg.grad(_guarded_index_expression)(np.array([0.5, 0.2])),
                               [3.0, 3.0])


def _constant_on_one_branch(x):
    if x > 0.0:
        b = 0.25  # a constant here, an active value on the other branch
    else:
        b = x * 3.0
    return b


def test_constant_assigned_on_one_branch_differentiates():
    """Was: 'internal: no reverse rule for the IR op const' (fixed by the compiler's owner)."""
    assert sg.grad(_constant_on_one_branch)(0.5) == 0.0
    assert sg.grad(_constant_on_one_branch)(-0.5) == 3.0


def _where_on_a_folded_numpy_bool(x):
    c = np.maximum(0.05, 0.01)  # folded to np.float64, so `c > 0.1` folds to np.bool(False)
    y = np.where(c > 0.1, c, x)
    return np.sum(y)


def test_folded_numpy_bool_is_not_merged_with_python_false():
    """Was: np.sum(y, keepdims=np.bool(False)) emitted, TypeError."""
    x = np.array([0.3, 0.2, -0.4])
    np.testing.assert_allclose(sg.grad(_where_on_a_folded_numpy_bool)(x), [1.0, 1.0, 1.0])


def _constant_array_indexed_in_a_while_loop(x):
    c = np.array([0.5, 0.25, 0.125])
    acc = 0.0
    k = 0
    while k < 3 and acc < 10.0:
        acc = acc + c[k] * x
        k += 1
    return acc


def _stacked_constants_indexed_in_a_loop(x):
    c = np.stack([0.5, 0.25, 0.125])
    acc = 0.0
    for i in range(3):
        acc = acc + c[i] * x
        if x > 10.0:
            continue
    return acc


@pytest.mark.parametrize("fn", [_constant_array_indexed_in_a_while_loop,
                                _stacked_constants_indexed_in_a_loop])
def test_constant_array_indexed_by_a_loop_counter_differentiates(fn):
    """Was: refused as indexing a Python list with a run-time value."""
    assert sg.grad(fn)(0.5) == pytest.approx(0.875)


def _negated_sum_plus_mean(x):
    v7 = -x
    v9 = np.mean(x, axis=0)
    return -1.37 * np.sum(v7) + 1.41 * v9


def test_folded_constant_adjoint_keeps_the_arguments_shape():
    got = sg.grad(_negated_sum_plus_mean)(np.array([0.2, 0.4, 0.1]))
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, [1.84, 1.84, 1.84])


def _write_then_two_sums(x):
    z = x + 0.0
    z[:, 0] = 0.5
    return -1.43 * np.sum(z - -0.8) + 1.03 * np.sum(0.5 * z)


def test_write_adjoint_of_a_folded_constant_keeps_its_shape():
    got = sg.grad(_write_then_two_sums)(np.full((1, 3), 0.3))
    np.testing.assert_allclose(got, [[0.0, -0.915, -0.915]])
