"""Issue 14's last NumPy functions in user programs: ``np.gradient`` (every spacing form,
``axis=``, ``edge_order=``, the tuple result), ``np.partition`` (any ``kth``, ``axis=``),
``np.select`` (choices and a differentiable default) and the complex-number functions on
real values (``np.real``, ``np.imag``, ``np.conj``, ``np.angle``, ``np.real_if_close``,
``x.real``, ``x.imag``, ``x.conj()``, the ``iscomplex`` family).

Each program is checked against central finite differences in reverse mode, forward mode
and second order (``check_all_modes``). Refusals (a complex argument or a complex value
computed from it, a spacing computed from the differentiated argument) name the line and
give advice.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

W = np.array([[0.5, -1.0, 2.0, 0.7, 0.1], [1.5, 0.25, -0.75, 1.1, -0.3],
              [0.3, 0.9, -0.2, 2.0, 1.2], [-0.6, 0.4, 0.8, -1.3, 0.2]])
COORDS = np.array([0.0, 0.4, 1.5, 1.7, 3.0])  # non-uniform, along the length-5 axis
CONDS = [W > 0.5, W < -0.5]
X = np.random.default_rng(3).normal(size=(4, 5))


# --- np.gradient ------------------------------------------------------------------------
def gradient_of_a_matrix_unpacked_per_axis(x):
    d0, d1 = np.gradient(x)
    return np.sum(np.sin(d0) * W + d1 ** 2)


def gradient_with_one_spacing_and_edge_order_two(x):
    d0, d1 = np.gradient(x * W, 0.5, edge_order=2)
    return np.sum(d0 * d1)


def gradient_with_coordinates_and_a_scalar_spacing(x):
    d0, d1 = np.gradient(x ** 2, 2.0, COORDS)
    return np.sum(d0 * W) + np.sum(np.cos(d1))


def gradient_along_one_axis_is_one_array(x):
    return np.sum(np.gradient(x, axis=-1) ** 3 * W)


def gradient_along_an_axis_tuple(x):
    parts = np.gradient(np.tanh(x), axis=(1, 0), edge_order=2)
    return np.sum(parts[0] * W) + np.sum(parts[1] ** 2)


def gradient_of_a_vector_with_coordinates(x):
    return np.sum(np.gradient(x[0] ** 2, COORDS, edge_order=2) * W[1])


# --- np.partition -----------------------------------------------------------------------
def partition_of_each_row(x):
    return np.sum(np.partition(x, 2) * W)


def partition_along_axis_zero_with_a_kth_list(x):
    return np.sum(np.partition(x ** 2, [0, 3], axis=0) * W)


def partition_of_the_flattened_array(x):
    return np.sum(np.partition(np.sin(x), -2, axis=None) * np.ravel(W))


# --- np.select --------------------------------------------------------------------------
def select_between_traced_choices_and_a_default(x):
    return np.sum(np.select(CONDS, [x ** 2, np.sin(x)], default=0.0) * W)


def select_with_conditions_on_the_argument_and_a_traced_default(x):
    chosen = np.select([x > 0.3, x < -0.4], [x * W, 2.0 * x], default=x[0, 0] * 3.0)
    return np.sum(chosen ** 2)


def select_with_a_broadcast_choice(x):
    return np.sum(np.select(CONDS, [x[0], x ** 3], default=x[1]) * W)


# --- real values through the complex-number functions ---------------------------------
def complex_parts_of_real_values(x):
    return np.sum(np.real(x) ** 2 * W + np.conj(x) * np.conjugate(x ** 2)
                  + np.imag(x) + np.real_if_close(x * W))


def complex_attributes_and_methods_of_real_values(x):
    return np.sum(x.real * x.conj() * W + x.imag + (x ** 2).conjugate())


def angle_of_real_values_is_piecewise_constant(x):
    return np.sum(np.angle(x) * x + np.angle(x, deg=True) * W)


def complex_tests_pick_the_real_branch(x):
    if np.iscomplexobj(x) or not np.isrealobj(x):
        return np.sum(x)
    return np.sum(np.where(np.iscomplex(x) | ~np.isreal(x), 0.0, x ** 2 * W))


PROGRAMS = [gradient_of_a_matrix_unpacked_per_axis, gradient_with_one_spacing_and_edge_order_two,
            gradient_with_coordinates_and_a_scalar_spacing, gradient_along_one_axis_is_one_array,
            gradient_along_an_axis_tuple, gradient_of_a_vector_with_coordinates,
            partition_of_each_row, partition_along_axis_zero_with_a_kth_list,
            partition_of_the_flattened_array, select_between_traced_choices_and_a_default,
            select_with_conditions_on_the_argument_and_a_traced_default,
            select_with_a_broadcast_choice, complex_parts_of_real_values,
            complex_attributes_and_methods_of_real_values,
            angle_of_real_values_is_piecewise_constant, complex_tests_pick_the_real_branch]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_issue14_last_numpy_functions_differentiate_in_every_mode(fn):
    check_all_modes(fn, X.copy())


def real_part_of_a_float(x):
    return x.real * x + np.real(x) ** 3 + np.conj(x) * np.angle(x) + np.imag(x)


def test_complex_parts_of_a_python_float_differentiate_twice():
    check_all_modes(real_part_of_a_float, 1.3)


def test_gradient_vjp_is_the_transpose_of_numpys_stencil():
    # <D^T c, f> == <c, D f> for every spacing form and both edge orders, through sg.vjp
    rng = np.random.default_rng(11)
    for spacing in (1.0, 0.3, COORDS):
        for edge_order in (1, 2):
            def along(x, spacing=spacing, edge_order=edge_order):
                return np.gradient(x, spacing, axis=1, edge_order=edge_order)

            f, c = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
            back = sg.vjp(along)(f, c)
            assert_close(np.sum(back * f), np.sum(c * along(f)), rtol=1e-12, atol=1e-12)


def test_partition_sends_each_tied_value_to_the_element_argpartition_put_there():
    x = np.array([2.0, 1.0, 2.0, 0.5, 2.0, 3.0])
    weights = np.arange(1.0, 7.0)

    def f(v):
        return np.sum(np.partition(v, 2) * weights)

    order = np.argpartition(x, 2)
    want = np.zeros_like(x)
    want[order] = weights  # position k's weight goes to the element moved there
    assert_close(sg.grad(f)(x), want)
    assert_close(sg.jvp(f)(x, np.eye(6)[order[3]])[1], weights[3])


def test_select_gives_the_default_the_gradient_where_no_condition_holds():
    conds = [np.array([True, False, False]), np.array([True, True, False])]

    def f(x, d):
        return np.sum(np.select(conds, [x, 2.0 * x], default=d) * np.array([1.0, 2.0, 3.0]))

    x, d = np.array([0.5, -1.0, 2.0]), 0.7
    gx, gd = sg.grad(f, wrt=(0, 1))(x, d)
    assert_close(gx, numeric_gradient(f, [x, d], {}, 0))
    assert_close(gd, numeric_gradient(f, [x, d], {}, 1))
    assert gd == 3.0 and np.array_equal(gx, [1.0, 4.0, 0.0])


# --- refusals ---------------------------------------------------------------------------
def squares_a_complex_argument(z):
    return np.sum(z * z)  # <- error


def makes_a_complex_value(x):
    return np.real(np.sum(np.exp(1j * x)))  # <- error


def spacing_from_the_argument(x):
    return np.sum(np.gradient(x, x[0, 0]))  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_complex_value_computed_from_the_argument_is_refused(mode):
    assert_refused(makes_a_complex_value, X.copy(), ("complex value",), mode)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_spacing_computed_from_the_argument_is_refused(mode):
    assert_refused(spacing_from_the_argument, X.copy(), ("spacing",), mode)


@pytest.mark.parametrize("value", [np.array([1.0 + 2.0j, 3.0]), 1.0 + 2.0j,
                                   np.complex64(1.0 - 1.0j)], ids=["array", "python", "numpy"])
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_a_complex_argument_is_refused_before_compiling(value, transform):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        if transform == "grad":
            sg.grad(squares_a_complex_argument)(value)
        else:
            sg.jvp(squares_a_complex_argument)(value, value)
    assert "complex" in str(info.value) and "`z`" in str(info.value)
    assert "real" in info.value.advice
