"""What users write with comprehensions, generator expressions and the loops they stand
for (issue 14 item 3), each checked against central finite differences in reverse
(``sg.grad``), forward (``sg.jvp``) and second order (``sg.hessian``).

A list or tuple of run-time values appended in a run-time loop (``[[r[0], r[1]] for r in
X]``, ``out.append((a, b))``) once lost its derivative: the packed item had no adjoint and
no tangent, so the gradient was silently zero. Now item k of the container's cotangent
(a list, or a row of the array ``np.array`` made of it) flows to item k.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])


def check_every_mode(fn, x):
    sg.clear_cache()
    want = numeric_gradient(fn, (x,), None, 0)
    assert np.any(want != 0), "a test whose gradient is 0 cannot fail"
    assert_close(sg.grad(fn)(x), want, rtol=1e-5)
    tangent = np.linspace(-1.0, 1.2, x.size).reshape(x.shape)
    value, d = sg.jvp(fn)(x, tangent)
    assert_close(value, fn(x), what="value")
    assert_close(d, directional_derivative(fn, (x,), {0: tangent}), rtol=1e-5)
    assert_close(sg.hessian(fn)(x), numeric_hessian(sg.grad(fn), (x,)), rtol=1e-4,
                 atol=1e-5)


def list_of_lists_over_rows(X):
    return np.sum(np.array([[r[0], r[1] * r[2]] for r in X]) ** 2)


def tuples_appended_in_a_loop_over_rows(X):
    out = []
    for r in X:
        out.append((r[0], np.sin(r[1])))
    return np.sum(np.array(out) ** 3)


def pairs_of_rows_stacked(X):
    return np.sum(np.stack([np.array([r[0] * r[2], r[1]]) for r in X]) * X[0, 0])


PACKED = [list_of_lists_over_rows, tuples_appended_in_a_loop_over_rows, pairs_of_rows_stacked]


@pytest.mark.parametrize("fn", PACKED, ids=[f.__name__ for f in PACKED])
def test_lists_of_traced_values_built_in_a_run_time_loop_differentiate(fn):
    check_every_mode(fn, X)
