"""Every rule whose NumPy result may share memory with its argument (the record's
``view`` field: ``flip``, ``diag`` of a matrix, ``einsum("ij->ji", a)``, ``atleast_2d``,
besides ``reshape``/``transpose``/slices) takes part in the aliasing check: a later write
into the array or the view, which the other name sees in NumPy, is refused with advice to
copy. These were silently wrong (a gradient of 0) while only a hand-kept list of view
primitives fed the check. Without a write, the same functions differentiate.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_errors import compile_error, marked_line

import srcgrad as sg
from tests.fd import (
    assert_close,
    directional_derivative,
    numeric_gradient,
    numeric_hessian,
)

THIS_FILE = os.path.basename(__file__)


def write_seen_through_flip(x):
    y = np.zeros(3)
    z = np.flip(y)
    y[0] = x  # <- error
    return np.sum(z * x)


def write_seen_through_diag(x):
    y = np.zeros((2, 2))
    d = np.diag(y)
    y[0, 0] = x  # <- error
    return np.sum(d * x)


def write_seen_through_einsum_transpose(x):
    y = np.zeros((2, 2))
    z = np.einsum("ij->ji", y)
    y[0, 1] = x  # <- error
    return np.sum(z * x)


def write_into_atleast_2d_view(x):
    y = np.zeros(3)
    z = np.atleast_2d(y)
    z[0, 1] = x  # <- error
    return np.sum(y * x)


REFUSED = [write_seen_through_flip, write_seen_through_diag,
           write_seen_through_einsum_transpose, write_into_atleast_2d_view]


@pytest.mark.parametrize("fn", REFUSED, ids=[f.__name__ for f in REFUSED])
def test_write_seen_through_a_view_rule_is_refused_with_copy_advice(fn):
    assert fn(1.5) == pytest.approx(2.25)  # NumPy: the other name sees the write
    text = str(compile_error(fn, 1.5))
    assert ("shares its array" in text or "view of another array" in text), text
    assert ".copy()" in text, text
    assert f"{THIS_FILE}:{marked_line(fn)}" in text, text


def views_read_without_writes(x):
    return (np.sum(np.flip(x) * x) + np.sum(np.diag(np.outer(x, x)) * np.sin(x))
            + np.sum(np.einsum("ij->ji", np.outer(x, np.cos(x))) ** 2)
            + np.sum(np.atleast_2d(x) * x[::-1]))


X = np.array([0.3, -0.7, 1.1])


def test_view_rules_without_writes_differentiate_in_reverse_mode():
    assert_close(sg.grad(views_read_without_writes)(X.copy()),
                 numeric_gradient(views_read_without_writes, (X.copy(),), {}, 0))


def test_view_rules_without_writes_differentiate_in_forward_mode():
    t = np.array([0.5, -1.0, 2.0])
    _, got = sg.jvp(views_read_without_writes)(X.copy(), t)
    assert_close(got, directional_derivative(views_read_without_writes, (X.copy(),), {0: t}))


def test_view_rules_without_writes_differentiate_twice():
    grad = sg.grad(views_read_without_writes)
    assert_close(sg.hessian(views_read_without_writes)(X.copy()),
                 numeric_hessian(grad, (X.copy(),)))
