"""Closeness tests on differentiated values (``np.allclose``, ``np.isclose``,
``np.array_equal``) are declared zero-derivative rules: used in an ``assert`` or an ``if``
they differentiate (both modes, against central differences), never "a call with no rule"."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([1.0, 2.0, 3.0])


def asserts_close(x):
    assert np.allclose(x, (x * 3.0) / 3.0)
    return np.sum(x ** 2)


def branches_on_isclose(x):
    if np.all(np.isclose(x, 0.0)):
        return np.sum(x)
    return np.sum(np.sin(x))


def branches_on_array_equal(x):
    y = x * 1.0
    if np.array_equal(x, y):
        return np.sum(y ** 3)
    return np.sum(y)


@pytest.mark.parametrize("fn", [asserts_close, branches_on_isclose, branches_on_array_equal])
def test_a_closeness_test_on_differentiated_values_differentiates(fn):
    sg.clear_cache()
    want = numeric_gradient(fn, (X,), {}, 0)
    assert_close(sg.grad(fn)(X), want)
    t = np.array([0.3, -0.2, 0.5])
    _, tangent = sg.jvp(fn)(X, t)
    assert tangent == pytest.approx(float(np.sum(want * t)), rel=1e-6, abs=1e-6)
