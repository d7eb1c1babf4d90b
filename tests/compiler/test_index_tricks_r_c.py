"""``np.r_[...]`` and ``np.c_[...]`` with traced values (compiler/frontend/index_tricks.py).

They used to be refused ("indexing a RClass with a value known only at run time"). Each
item now follows NumPy's recipe (ndmin promotion, ``np.c_``'s columns, constant slices as
``arange``/``linspace``, a first ``'axis,ndmin,trans1d'`` directive) and the whole is one
``np.concatenate``. Checked against central finite differences with a random seed (the
order of the pieces matters), forward along random tangents, and at second order.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg

C2 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]])
C10 = np.linspace(-1.0, 1.0, 10)


def r_one(x):
    return np.r_[x]


def r_twice(x):
    return np.r_[x, x * 2.0]


def r_traced_then_constant(x):
    return np.r_[x, C2, x]


def r_constant_only_inside(x):
    return np.r_[C2] * x


def r_with_slices_and_scalars(x):
    return np.r_[x, C10, 1:10, 0:1:4j, 2.5, x[0]]


def c_columns_of_matrices(x):
    return np.c_[x, C2, x ** 2]


def c_columns_of_vectors(x):
    return np.c_[x, np.sin(x), 0:3]


def r_directive_last_axis(x):
    return np.r_["-1", x, np.cos(x)]


def r_directive_rows(x):
    return np.r_["0,2", x, x * x]


def r_directive_columns(x):
    return np.r_["0,2,0", x, x * x]


def r_directive_three_dims(x):
    return np.r_["1,3,1", x, C2]


def r_list_of_traced_items(x):
    return np.r_[[x[0], 2.0], x]


PROGRAMS = [(r_one, (3, 2)), (r_twice, (3, 2)), (r_traced_then_constant, (3, 2)),
            (r_constant_only_inside, (3, 2)), (r_with_slices_and_scalars, (10,)),
            (c_columns_of_matrices, (3, 2)), (c_columns_of_vectors, (3,)),
            (r_directive_last_axis, (3, 2)), (r_directive_rows, (3,)),
            (r_directive_columns, (3,)), (r_directive_three_dims, (3, 2)),
            (r_list_of_traced_items, (3,))]


@pytest.mark.parametrize("fn, shape", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_r_and_c_of_traced_values_match_numpy_in_both_modes(fn, shape):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape)

    def program(v):
        return np.sin(fn(v))
    out = program(x)
    seed = rng.standard_normal(out.shape)
    assert_close(sg.vjp(program)(x, seed), numeric_gradient(program, [x], {}, 0, seed=seed),
                 rtol=1e-5, atol=1e-6)
    t = rng.standard_normal(shape)
    value, tangent = sg.jvp(program)(x, t)
    assert_close(value, out)
    assert_close(tangent, directional_derivative(program, [x], {0: t}), rtol=1e-5, atol=1e-6)


def r_of_float_argument(a):
    return np.sum(np.r_[a, 2.0 * a, 1.0] ** 2 * np.array([1.0, -0.5, 2.0]))


def c_weighted(x):
    return np.sum(np.c_[x, np.sin(x)] ** 2 * np.array([[1.0, 2.0], [-1.0, 0.5], [3.0, 1.0]]))


def r_weighted_slices(x):
    return np.sum(np.r_[x, 0:3, x ** 2] ** 2 * np.arange(9.0))


@pytest.mark.parametrize("fn, x", [(r_of_float_argument, 0.7),
                                   (c_weighted, np.array([0.3, -1.2, 0.8])),
                                   (r_weighted_slices, np.array([0.3, -1.2, 0.8]))])
def test_r_and_c_differentiate_twice(fn, x):
    check_all_modes(fn, x)


def test_r_keeps_float32_with_a_python_scalar_as_numpy_does():
    def f(x):
        return np.r_[x, 2.0]
    x = np.array([0.5, -1.0], dtype=np.float32)
    assert f(x).dtype == np.float32
    value, tangent = sg.jvp(f)(x, np.ones(2, dtype=np.float32))
    assert value.dtype == np.float32
    assert_close(tangent, np.array([1.0, 1.0, 0.0]))


def r_matrix_directive(x):
    return np.sum(np.r_["r", x, x])  # <- error


def r_run_time_slice(x):
    n = int(np.sum(x > 0))
    return np.sum(np.r_[x, 0:n])  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_r_matrix_directive_is_refused_naming_it(mode):
    assert_refused(r_matrix_directive, np.ones(3), ["'r'", "np.matrix"], mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_r_slice_with_run_time_bounds_is_refused(mode):
    assert_refused(r_run_time_slice, np.ones(3), ["np.r_", "slice"], mode)


