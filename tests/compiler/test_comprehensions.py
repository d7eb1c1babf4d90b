"""List comprehensions and generator expressions differentiate (API.md, "Python that must
differentiate"): frontend/comprehensions.py lowers each as the loop Python runs for it, so
it unrolls over a range or list and becomes a run-time loop over an array. They used to be
refused ("the expression `ListComp` is not supported"). A filter known only at run time is
refused at the user's line with advice (the list's length would be known only then).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([0.3, -0.7, 1.2])
M = np.array([[0.5, -0.2, 0.9], [1.1, 0.4, -0.6]])
WEIGHTS = [np.array([1.0, 2.0, 0.5]), np.array([0.3, -0.4, 0.8])]


def list_comprehension_over_a_range(x):
    vals = [x[i] * (i + 1) for i in range(3)]
    return np.sum(np.square(vals))


def generator_in_builtin_sum_over_an_array(x):
    return sum(v ** 2 for v in x) * x[0]


def nested_generators_with_a_compile_time_filter(x):
    pairs = [x[i] * x[j] for i in range(3) for j in range(3) if i < j]
    return np.sum(np.array(pairs) ** 2)


def comprehension_over_captured_weights(x):
    return np.sum(np.stack([np.tanh(w * x) for w in WEIGHTS]) ** 2)


def generator_over_rows_of_a_matrix(m):
    return sum(np.sum(row ** 2) * row[0] for row in m)


def names_do_not_leak(x):
    i = 2
    total = np.sum(np.array([x[i] ** 2 for i in range(2)]))
    return total * x[i]


CASES = [(list_comprehension_over_a_range, X), (generator_in_builtin_sum_over_an_array, X),
         (nested_generators_with_a_compile_time_filter, X),
         (comprehension_over_captured_weights, X), (generator_over_rows_of_a_matrix, M),
         (names_do_not_leak, X)]


@pytest.mark.parametrize("fn,x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_a_comprehension_differentiates_in_every_mode(fn, x):
    sg.clear_cache()
    assert_close(sg.grad(fn)(x), numeric_gradient(fn, (x,), None, 0))
    tangent = np.linspace(-1.0, 1.2, x.size).reshape(x.shape)
    value, d = sg.jvp(fn)(x, tangent)
    assert_close(value, fn(x), what="value")
    assert_close(d, directional_derivative(fn, (x,), {0: tangent}))
    assert_close(sg.hessian(fn)(x), numeric_hessian(sg.grad(fn), (x,)))


def test_a_comprehension_of_a_float_differentiates_at_second_order():
    def f(a):
        return sum(a ** k for k in range(1, 4))

    sg.clear_cache()
    assert_close(sg.grad(f)(0.7), numeric_gradient(f, (0.7,), None, 0))
    assert_close(sg.grad(sg.grad(f))(0.7), numeric_hessian(sg.grad(f), (0.7,)))


def filtered_at_run_time_over_an_array(x):
    return np.sum([v ** 2 for v in x if v > 0])


def filtered_at_run_time_over_a_range(x):
    return np.sum(np.array([x[i] for i in range(3) if x[i] > 0]))


@pytest.mark.parametrize("fn", [filtered_at_run_time_over_an_array,
                                filtered_at_run_time_over_a_range])
def test_a_filter_known_only_at_run_time_is_refused_at_its_line(fn):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn)(X)
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, t in enumerate(lines) if " if " in t)
    message = str(info.value)
    assert f"{__file__}:{line}:" in message
    assert "comprehension" in message and "np.where" in message
