"""``np.einsum`` through the compiler in every spelling NumPy accepts: the subscripts string
(with ``...`` and broadcasting), the (operand, sublist, ..., [output sublist]) form (with
``Ellipsis``), in reverse and forward mode and at second order, against central
differences; and the forms srcgrad cannot differentiate refused, never silently wrong."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import directional_derivative, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(5)
A = rng.uniform(-1.0, 1.0, (3, 4))
B = rng.uniform(-1.0, 1.0, (4, 2))
BATCH = rng.uniform(-1.0, 1.0, (2, 3, 4))
C = rng.uniform(-1.0, 1.0, (2, 3))


def sublists_matmul(x):
    return np.sum(np.einsum(x, [0, 1], B, [1, 2], [0, 2]) * C.T)


def sublists_implicit_output(x):
    return np.sum(np.einsum(x, [0, 1], B, [1, 2]) ** 2)


def sublists_transposed_output(x):
    return np.sum(np.einsum(x, [0, 1], x, [0, 2], [2, 1]) * np.arange(16.0).reshape(4, 4))


def sublists_with_ellipsis(x):
    return np.sum(np.einsum(x, [Ellipsis, 0, 1], B, [1, 2], [Ellipsis, 2, 0]) ** 2)


def sublists_reshaped_input(x):
    return np.sum(np.einsum(x.reshape(2, 2), [0, 1], [1, 0]) * np.arange(4.0).reshape(2, 2))


def string_with_ellipsis(x):
    return np.sum(np.einsum("...ij,jk->...ik", x, B) ** 2)


def string_with_implicit_ellipsis_output(x):
    return np.sum(np.sin(np.einsum("...ij,jk", x, B)))


def string_ellipsis_broadcasting(x):
    # x's batch axis of size 1 broadcasts against BATCH's 2
    return np.sum(np.einsum("...ij,...ij->...i", x, BATCH) ** 2)


def string_broadcast_named_axis(x):
    return np.sum(np.einsum("ij,ij->i", x, A) ** 2)  # x is (3, 1): j broadcasts


@pytest.mark.parametrize("f, x", [
    (sublists_matmul, A), (sublists_implicit_output, A), (sublists_transposed_output, A),
    (sublists_with_ellipsis, BATCH), (sublists_reshaped_input, np.array([1.0, 2.0, 3.0, 4.0])),
    (string_with_ellipsis, BATCH), (string_with_implicit_ellipsis_output, BATCH),
    (string_ellipsis_broadcasting, BATCH[:1]), (string_broadcast_named_axis, A[:, :1]),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_einsum_form_differentiates_in_both_modes(f, x):
    sg.clear_cache()
    want = numeric_gradient(f, [x], {}, 0)
    np.testing.assert_allclose(sg.grad(f)(x), want, rtol=1e-6, atol=1e-7)
    u = np.random.default_rng(2).standard_normal(x.shape)
    _, t = sg.jvp(f)(x, u)
    np.testing.assert_allclose(t, np.sum(want * u), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, x", [
    (sublists_implicit_output, A[:2]), (sublists_transposed_output, A[:2]),
    (string_with_ellipsis, BATCH[:1, :2]), (string_ellipsis_broadcasting, BATCH[:1]),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_einsum_form_second_order_matches_finite_differences(f, x):
    sg.clear_cache()
    h = sg.hessian(f)(x).reshape(x.size, x.size)
    for k in range(x.size):
        def component(v, k=k):
            return sg.grad(f)(v).ravel()[k]
        np.testing.assert_allclose(h[k], numeric_gradient(component, [x], {}, 0).ravel(),
                                   rtol=1e-5, atol=1e-6)


def sublist_read_at_run_time(x, sub):
    return np.sum(np.einsum(x, sub, B, [1, 2]))


def all_sublists_read_at_run_time(x, sub, sub_b):
    return np.sum(np.einsum(x, sub, B, sub_b))


def diagonal_inside_einsum(x):
    return np.sum(np.einsum("ii->i", x))


def test_einsum_sublist_not_known_when_compiling_is_refused_naming_the_line():
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError, match=r"test_einsum_forms\.py:\d+: .*sublist form"):
        sg.grad(sublist_read_at_run_time)(A, np.array([0, 1]))


def test_einsum_whose_sublists_are_all_run_time_values_is_refused_not_zero():
    # read as the subscripts form, x lands in the subscripts parameter: refused by activity
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError,
                       match=r"test_einsum_forms\.py:\d+: .*einsum\(\)'s parameter `subscripts`"):
        sg.grad(all_sublists_read_at_run_time)(A, np.array([0, 1]), np.array([1, 2]))


def test_einsum_with_an_index_repeated_in_one_operand_differentiates():
    check_all_modes(diagonal_inside_einsum, np.array([[0.5, -1.2, 0.3], [0.7, 1.1, -0.4],
                                                      [2.0, 0.2, -0.9]]))


def diagonals_inside_einsum(x):
    a = np.reshape(np.outer(x[:3], np.outer(x, x)), (3, 4, 4))
    b = np.reshape(np.outer(x, np.outer(x, x[:3])), (4, 4, 3))
    return np.sum(np.einsum("ijk,lji,lli->lki", a, b, np.sin(b)) ** 2)


def trace_like_einsum(x):
    m = np.outer(x, x)
    return np.einsum("ii", m * m) + np.sum(np.einsum("iij->j", np.reshape(m, (2, 2, 4))) ** 2)


@pytest.mark.parametrize("fn", [diagonals_inside_einsum, trace_like_einsum],
                         ids=lambda f: f.__name__)
def test_einsum_diagonals_differentiate(fn):
    check_all_modes(fn, np.array([0.6, -1.3, 0.7, 1.1]))


def sublists_in_a_tuple_argument(x, sub_x, y, sub_y, sub_out):
    return np.sum(np.einsum(x, sub_x, y, sub_y, sub_out) ** 2)


@pytest.mark.parametrize("wrt", [0, 2])
def test_einsum_sublists_passed_as_tuples_are_refused_naming_the_line(wrt):
    # a tuple argument's ints are read at run time: the derivative's subscripts would be
    # too, so the form is refused with what to write instead (not a TypeError from inside)
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError,
                       match=r"test_einsum_forms\.py:\d+: .*sublist\) form needs each sublist"):
        sg.grad(sublists_in_a_tuple_argument, wrt=wrt)(A, (0, 1), B, (1, 2), (0, 2))


A3 = rng.uniform(-1.0, 1.0, (3, 4, 4))
B3 = rng.uniform(-1.0, 1.0, (4, 4, 3))


def subscripts_argument(subscripts, c):
    return np.sum(np.einsum(subscripts, A3, B3, c) ** 2)


@pytest.mark.parametrize("subscripts", ["ijk,lji,lli->lki", "ijk,lji,lmi->lki"])
def test_einsum_subscripts_read_at_run_time_differentiate_any_operand(subscripts):
    # subscripts given as an argument: whether the operand repeats an index ("lli", a
    # diagonal) is known only when the derivative runs, so both cases take the delta path
    sg.clear_cache()
    c = rng.uniform(-1.0, 1.0, (4, 4, 3))
    want = numeric_gradient(subscripts_argument, [subscripts, c], {}, 1)
    np.testing.assert_allclose(sg.grad(subscripts_argument, wrt=1)(subscripts, c), want,
                               rtol=1e-6, atol=1e-7)
    u = np.random.default_rng(3).standard_normal(c.shape)
    _, t = sg.jvp(subscripts_argument, wrt=1)(subscripts, c, u)
    np.testing.assert_allclose(t, np.sum(want * u), rtol=1e-6, atol=1e-7)
    # second order through the run-time path: the Hessian-vector product against
    # differences of the compiled gradient
    grad = sg.grad(subscripts_argument, wrt=1)
    hv = sg.jvp(grad, wrt=1)(subscripts, c, u)[1]
    np.testing.assert_allclose(hv, directional_derivative(grad, [subscripts, c], {1: u}),
                               rtol=1e-5, atol=1e-6)


WEIGHTS = [1.0, 2.0, 3.0]


def subscripts_argument_with_a_list_operand(subscripts, y):
    return np.sum(np.einsum(subscripts, WEIGHTS, y) ** 2)


def subscripts_and_a_list_as_arguments(subscripts, x, y):
    return np.sum(np.einsum(subscripts, x, y) ** 2)


def test_a_list_operand_after_run_time_subscripts_is_no_sublist():
    # subscripts read at run time: the call is in the subscripts form, so a list in the
    # place a sublist would be is an operand (not refused as a run-time sublist)
    sg.clear_cache()
    y = np.array([0.5, -1.0, 2.0])
    u = np.array([0.3, -0.7, 1.1])
    want = 2.0 * np.asarray(WEIGHTS) ** 2 * y
    for f, args in ((subscripts_argument_with_a_list_operand, ["i,i->i", y]),
                    (subscripts_and_a_list_as_arguments, ["i,i->i", WEIGHTS, y])):
        k = len(args) - 1
        np.testing.assert_allclose(sg.grad(f, wrt=k)(*args), want)
        np.testing.assert_allclose(sg.grad(f, wrt=k)(*args), numeric_gradient(f, args, {}, k),
                                   rtol=1e-6, atol=1e-7)
        _, t = sg.jvp(f, wrt=k)(*args, u)
        np.testing.assert_allclose(t, directional_derivative(f, args, {k: u}),
                                   rtol=1e-6, atol=1e-7)
