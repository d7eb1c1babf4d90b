"""Array factories differentiate in the values they fill in (rules/factories.py).

``np.linspace`` in ``start`` and ``stop`` (``endpoint=False`` and ``num=1`` included),
``np.full``/``np.full_like`` in the fill value, ``np.arange`` in ``start`` and ``step``.
They were zero-derivative rules once, so a traced end point or fill value gave a gradient
of exactly 0. Each program is checked against central finite differences in reverse,
forward and second order, in the compiler, and ``np.linspace`` on Tensors in the runtime.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def linspace_to_traced_stop(x):
    return np.sum(np.linspace(0.0, x, 5) ** 2)


def linspace_without_endpoint(x):
    return np.sum(np.sin(np.linspace(x, 2 * x + 1, 4, endpoint=False)))


def linspace_of_one_point(x):
    return np.sum(np.linspace(x * x, 3.0, 1) * x)


def linspace_traced_start_constant_stop(x):
    return np.sum(np.exp(np.linspace(x, 1.0, 6)))


def full_of_traced_value(x):
    return np.sum(np.full((2, 3), x) * W)


def full_like_of_traced_value(x):
    return np.sum(np.full_like(W, x * x) * W)


def arange_from_traced_start(x):
    return np.sum(np.arange(x, 3.05, 0.5) ** 2)


def arange_with_traced_step(x):
    return np.sum(np.arange(0.0, 2.05, x * 0.5) ** 2)


def arange_of_traced_count(x):
    return np.sum(np.arange(x) * x)  # arange(x) is 0, 1, ...: only the factor x varies


FLOAT_PROGRAMS = [linspace_to_traced_stop, linspace_without_endpoint, linspace_of_one_point,
                  linspace_traced_start_constant_stop, full_of_traced_value,
                  full_like_of_traced_value, arange_from_traced_start, arange_with_traced_step,
                  arange_of_traced_count]


@pytest.mark.parametrize("fn", FLOAT_PROGRAMS, ids=lambda f: f.__name__)
def test_factory_of_traced_floats_differentiates(fn):
    x = 4.5 if fn is arange_of_traced_count else 1.0 if fn is arange_with_traced_step else 0.3
    check_all_modes(fn, x)


def linspace_between_arrays(x):
    return np.sum(np.linspace(x, x ** 2, 3) ** 2)


def full_of_traced_row(x):
    return np.sum(np.full((4, 2), x) ** 3)


@pytest.mark.parametrize("fn", [linspace_between_arrays, full_of_traced_row],
                         ids=lambda f: f.__name__)
def test_factory_of_traced_arrays_differentiates(fn):
    check_all_modes(fn, np.array([0.6, -1.3]))


def test_linspace_on_tensors_records_its_derivative():
    def f(a, b):
        return np.sum(np.linspace(a, b, 4) ** 2)

    a = sg.tensor(0.5, dtype=sg.float64, requires_grad=True)
    b = sg.tensor(2.0, dtype=sg.float64, requires_grad=True)
    f(a, b).backward()
    want_a = numeric_gradient(lambda v: f(v, 2.0), [0.5], {}, 0)
    want_b = numeric_gradient(lambda v: f(0.5, v), [2.0], {}, 0)
    assert_close(a.grad.numpy(), want_a)
    assert_close(b.grad.numpy(), want_b)
