"""``np.pad`` differentiates in its copying modes (rules/padding.py): constant (with
``constant_values``), edge, reflect, symmetric and wrap, with pad widths as an int, a pair
and one pair per axis; reverse, forward and second order against central finite
differences, and on the runtime. A mode without a rule (``maximum``) is refused naming the
modes that differentiate. ``constant_values`` differentiates too (a scalar, a pair, one
pair per axis: NumPy fills corners with the later axis' constants).
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([0.6, -1.3, 0.7, 1.1])
W = np.cos(np.arange(80.0)) + 1.5


def _weighted(y):
    return np.sum(np.ravel(y) ** 2 * W[:np.size(y)])


def pad_constant_int(x):
    return _weighted(np.pad(x ** 2, 2))


def pad_constant_values(x):
    return _weighted(np.pad(np.outer(x[:3], x), ((1, 2), (0, 3)), constant_values=1.5))


def pad_edge(x):
    return _weighted(np.pad(np.outer(x[:3], x), ((1, 2), (3, 0)), mode="edge"))


def pad_reflect(x):
    return _weighted(np.pad(x, (3, 2), "reflect"))


def pad_symmetric(x):
    return _weighted(np.pad(np.outer(x[:2], x), 2, mode="symmetric"))


def pad_wrap(x):
    return _weighted(np.pad(np.outer(x[:3], x), ((1,), (5,)), mode="wrap"))


def pad_traced_constant(x):
    return _weighted(np.pad(x, 2, constant_values=x[0] * 2.0))


def pad_traced_pairs_per_axis(x):
    values = np.reshape(x, (2, 2))
    return _weighted(np.pad(np.outer(x[:3], x), ((1, 2), (2, 1)), constant_values=values))


def pad_traced_before_after(x):
    return _weighted(np.pad(np.outer(x[:2], x), 1, constant_values=x[1:3] ** 2))


PROGRAMS = [pad_constant_int, pad_constant_values, pad_edge, pad_reflect, pad_symmetric,
            pad_wrap, pad_traced_constant, pad_traced_pairs_per_axis, pad_traced_before_after]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_pad_differentiates(fn):
    check_all_modes(fn, X)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_pad_on_tensors_records_its_derivative(fn):
    x = sg.tensor(X, requires_grad=True)
    fn(x).backward()
    assert_close(x.grad.numpy(), numeric_gradient(fn, [X], {}, 0))


def pad_maximum(x):
    return np.sum(np.pad(x, 2, mode="maximum"))  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_pad_mode_without_rule_is_refused(mode):
    assert_refused(pad_maximum, X, ["maximum", "edge", "wrap"], mode)
