"""A derivative raises where the user's function raises, also on an op whose value the
function never reads and which raises on a run-time shape or value rather than on Python
arithmetic (``frontend/dead_checks``): an index out of range, ``int()`` of inf or nan,
``float()`` of a non-scalar array, a reshape, product, broadcast or join of mismatched
shapes, ``np.linalg.inv`` of a singular matrix. Before, dead code elimination dropped the
unread op and every transform returned a number."""

# ruff: noqa: F841  (the unread assignments are what these tests are about)

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcgrad as sg


def unread_index(x, i):
    y = x[i]
    return np.sum(x * x)


def unread_constant_index(x):
    y = x[3]
    return np.sum(x * x)


def unread_int(x):
    k = int(x)
    return x * x


def unread_float_of_array(x):
    v = float(x)
    return np.sum(x * x)


def float_of_array_times_two(x):
    return float(x[0:2]) * 2.0


def unread_inv(a):
    b = np.linalg.inv(a)
    return np.sum(a * a)


def unread_reshape(x):
    y = np.reshape(x, (3, 3))
    return np.sum(x * x)


def unread_matmul(x, w):
    y = x @ w
    return np.sum(x * x)


def unread_broadcast(x, w):
    y = x + w
    return np.sum(x * x)


def unread_stack(x, w):
    y = np.stack([x, w])
    return np.sum(x * x)


def unread_unequal_split(x):
    parts = np.split(x, 2)
    return np.sum(x * x)


def unread_len_of_0d(x):
    n = len(x)
    return np.sum(x * x)


def unread_axis_out_of_range(x):
    y = x.sum(axis=1)
    return np.sum(x * x)


def unread_moveaxis(x):
    y = np.moveaxis(x, 1, 0)
    return np.sum(x * x)


def unread_repeat(x):
    y = np.repeat(x, [1, 2])
    return np.sum(x * x)


def unread_index_in_branch(x, i):
    s = np.sum(x)
    if s > 0:
        y = x[i]
        s = s * 2.0
    return s * s


def _pick(x, i):
    return x[i]


def unread_call_result(x, i):
    _pick(x, i)
    return np.sum(x * x)


def unread_index_in_loop(x, i):
    s = 0.0
    for k in range(2):
        y = x[i + k]
        s = s + np.sum(x) * k
    return s


CASES: list[tuple[Callable[..., Any], tuple[Any, ...], type[BaseException]]] = [
    (unread_index, (np.ones(3), 5), IndexError),
    (unread_index, (np.ones(3), -4), IndexError),
    (unread_constant_index, (np.ones(3),), IndexError),
    (unread_int, (math.inf,), OverflowError),
    (unread_int, (math.nan,), ValueError),
    (unread_int, (np.float64(math.inf),), OverflowError),
    (unread_float_of_array, (np.ones(3),), TypeError),
    (float_of_array_times_two, (np.ones(3),), TypeError),
    (unread_inv, (np.zeros((2, 2)),), np.linalg.LinAlgError),
    (unread_reshape, (np.ones(4),), ValueError),
    (unread_matmul, (np.ones(3), np.ones((4, 2))), ValueError),
    (unread_broadcast, (np.ones(3), np.ones(4)), ValueError),
    (unread_stack, (np.ones(3), np.ones(4)), ValueError),
    (unread_index_in_loop, (np.ones(3), 2), IndexError),
    (unread_unequal_split, (np.ones(3),), ValueError),
    (unread_index_in_branch, (np.ones(3), 5), IndexError),
    (unread_call_result, (np.ones(3), 5), IndexError),
    (unread_len_of_0d, (np.array(1.0),), TypeError),
    (unread_axis_out_of_range, (np.ones(3),), np.exceptions.AxisError),
    (unread_moveaxis, (np.ones(3),), np.exceptions.AxisError),
    (unread_repeat, (np.ones(3),), ValueError),
]

TRANSFORMS: dict[str, Callable[[Callable[..., Any], tuple[Any, ...]], Any]] = {
    "grad": lambda f, a: sg.grad(f)(*a),
    "grad_unoptimized": lambda f, a: sg.grad(f, optimize=False)(*a),
    "value_and_grad": lambda f, a: sg.value_and_grad(f)(*a),
    "jvp": lambda f, a: sg.jvp(f)(*a, np.ones_like(a[0])),
    "hessian": lambda f, a: sg.hessian(f)(*a),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize(("f", "args", "error"), CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_derivative_raises_as_the_function_does(f, args, error, transform):
    with pytest.raises(error):
        f(*args)
    with pytest.raises(error):
        TRANSFORMS[transform](f, args)


@pytest.mark.parametrize(("f", "args"), [
    (unread_index, (np.arange(3.0), 2)),
    (unread_index, (np.arange(3.0), -3)),
    (unread_int, (2.5,)),
    (unread_int, (-0.0,)),
    (unread_float_of_array, (np.array(1.5, dtype=np.float32),)),
    (unread_inv, (np.eye(2),)),
    (unread_reshape, (np.arange(9.0),)),
    (unread_matmul, (np.ones(3), np.ones((3, 2)))),
    (unread_broadcast, (np.ones(3), np.ones(1))),
    (unread_index_in_loop, (np.arange(4.0), 2)),
    (unread_unequal_split, (np.arange(4.0),)),
    (unread_len_of_0d, (np.arange(2.0),)),
    (unread_axis_out_of_range, (np.ones((2, 2)),)),
    (unread_moveaxis, (np.ones((2, 3)),)),
    (unread_repeat, (np.ones(2),)),
])
def test_values_unchanged_where_nothing_raises(f, args):
    x = args[0]
    expected = 2.0 * np.asarray(x)
    if f is unread_index_in_loop:
        expected = np.ones_like(x)
    got = sg.grad(f)(*args)
    np.testing.assert_allclose(got, expected)
    assert type(got) is type(x) and np.shape(got) == np.shape(x)


def test_float_of_array_gradient_where_it_converts():
    def f(x):
        return float(x) * 2.0
    assert sg.grad(f)(np.array(3.0)) == 2.0
    assert sg.grad(f)(np.float32(3.0)) == 2.0


def test_unread_op_stays_in_the_emitted_code():
    text = sg.source(sg.grad(unread_index), np.ones(3), 1)
    assert "x[i]" in text


def test_read_op_not_kept_twice_nor_unread_safe_ops():
    """Only unread ops that may raise stay: a slice or an elementwise op on one array
    cannot raise, so the derivative does not compute it."""
    def f(x):
        y = x[1:]
        z = np.exp(x)
        return np.sum(x * x)
    text = sg.source(sg.grad(f), np.ones(3))
    assert "exp" not in text and "x[1:]" not in text


def _step(x, i):
    y = x[i]
    return np.tanh(x)


_checkpointed_step = sg.checkpoint(_step)


def checkpointed_loop(x, i):
    for _ in range(2):
        x = _checkpointed_step(x, i)
    return np.sum(x)


def test_checkpoint_keeps_the_unread_op_in_the_forward_pass_only():
    """The forward pass runs the user's unread ``x[i]`` (and raises there); the copy a
    checkpoint recomputes for its adjoint does not repeat it."""
    with pytest.raises(IndexError):
        sg.grad(checkpointed_loop)(np.ones(3), 5)
    text = sg.source(sg.grad(checkpointed_loop), np.ones(3), 1)
    assert text.count("[i]") == 1
    x = np.array([0.3, -0.2, 0.1])
    expected = (1 - np.tanh(np.tanh(x)) ** 2) * (1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(sg.grad(checkpointed_loop)(x, 1), expected)
