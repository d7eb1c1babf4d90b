"""Bugs found by running HIPS autograd's and Tangent's test corpora through srcgrad (round 10).

- ``np.floor/ceil/trunc`` of a Python float printed as ``math.floor``... gave an int where
  NumPy gives a float: ``-0.0`` became ``0``, ``1.0 / np.floor(0.5)`` raised
  ZeroDivisionError and ``np.trunc(inf)`` raised OverflowError in the derived function.
- A comparison of a shape known only at run time (``x.shape == (2, 2)``) was NumPy's
  elementwise ``np.equal``: an array of bools, so ``assert``/``if`` on it raised
  ValueError and arithmetic with it broadcast silently.
- A call with no derivative rule inside a called function was refused at the caller's
  line only; the message now also names the line where the call is written.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np
import pytest
from fd import numeric_gradient

import srcgrad as sg


def times_ceil(x):
    return x * np.ceil(x)


def inverse_floor(x):
    return 1.0 / np.floor(x) + x


def trunc_of_overflow(x):
    y = np.trunc(x * 1e308 * 10.0)
    return x + 0.0 * y


def user_math_floor(x):
    return x * math.floor(x)


def ceil_alone(x):
    return np.ceil(x) + 0.0 * x


@pytest.mark.parametrize("f, x", [(times_ceil, -0.2), (times_ceil, 1.3), (inverse_floor, 0.5),
                                  (inverse_floor, 2.5), (trunc_of_overflow, 0.5),
                                  (ceil_alone, -0.2)])
def test_numpy_rounding_of_python_float_keeps_numpys_float_value_in_every_mode(f, x):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = f(x)
        value, _ = sg.value_and_grad(f)(x)
        out, _ = sg.jvp(f)(x, 1.0)
    for got in (value, out):
        assert isinstance(got, float)  # a float (Python or NumPy), never an int
        assert np.array_equal(got, want, equal_nan=True)
        assert math.copysign(1.0, got) == math.copysign(1.0, want)  # -0.0 stays -0.0


def test_gradient_of_x_times_np_ceil_is_numpys_ceil_with_its_sign():
    g = sg.grad(times_ceil)(-0.2)
    assert g == 0.0 and math.copysign(1.0, g) == -1.0  # d/dx x*ceil(x) = ceil(x) = -0.0
    assert sg.grad(times_ceil)(1.3) == 2.0
    assert isinstance(sg.grad(times_ceil)(1.3), float)


def test_users_own_math_floor_keeps_pythons_int_semantics():
    assert sg.value_and_grad(user_math_floor)(2.5) == (5.0, 2.0)
    assert sg.jvp(user_math_floor)(2.5, 1.0) == (5.0, 2.0)


def assert_shape_of_scalar(x):
    assert x.shape == ()
    return x ** 2


def branch_on_shape(x):
    if x.shape == (2, 2):
        return np.sum(x ** 2)
    return np.sum(x)


def shapes_differ(x, y):
    if x.shape != y.shape:
        return np.sum(x) * np.sum(y)
    return np.sum(x * y)


def shape_test_as_a_factor(x):
    return np.sum(x ** 2) * (x.shape == (2, 2)) + np.sum(x) * (x.shape < (2, 3))


@pytest.mark.parametrize("x", [np.float64(2.0), np.array(2.0)])
def test_assert_on_a_zero_dim_shape_compares_as_python(x):
    assert sg.grad(assert_shape_of_scalar)(x) == 4.0
    assert sg.jvp(assert_shape_of_scalar)(x, 1.0)[1] == 4.0


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (4,)])
def test_branch_on_a_shape_compares_the_whole_tuple(shape):
    x = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    want = numeric_gradient(branch_on_shape, [x], None, 0)
    np.testing.assert_allclose(sg.grad(branch_on_shape)(x), want, rtol=1e-6)
    t = np.ones(shape)
    np.testing.assert_allclose(sg.jvp(branch_on_shape)(x, t)[1], np.sum(want * t), rtol=1e-6)


@pytest.mark.parametrize("sx, sy", [((2, 2), (2, 2)), ((2, 3), (3, 2)), ((3,), (3, 3))])
def test_two_run_time_shapes_compare_as_tuples(sx, sy):
    x = np.linspace(0.5, 1.5, int(np.prod(sx))).reshape(sx)
    y = np.linspace(-1.0, 2.0, int(np.prod(sy))).reshape(sy)
    gx, gy = sg.grad(shapes_differ, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, numeric_gradient(shapes_differ, [x, y], None, 0), rtol=1e-6)
    np.testing.assert_allclose(gy, numeric_gradient(shapes_differ, [x, y], None, 1), rtol=1e-6)


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (1, 5)])
def test_a_shape_comparison_is_one_bool_in_arithmetic(shape):
    x = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    value, g = sg.value_and_grad(shape_test_as_a_factor)(x)  # one element, not one per axis
    assert value == shape_test_as_a_factor(x)
    np.testing.assert_allclose(g, numeric_gradient(shape_test_as_a_factor, [x], None, 0), rtol=1e-6)
    seed = 1.5
    np.testing.assert_allclose(sg.vjp(shape_test_as_a_factor)(x, seed), seed * g, rtol=1e-12)


IDX = np.array([0, 2, 0])


def scatter_with_add_at(x):
    y = np.zeros(3)
    np.add.at(y, IDX, x)
    return np.sum(y ** 2)


def calls_scatter(x):
    return scatter_with_add_at(x) * 2.0


def _line_of(fn, text):
    lines, first = __import__("inspect").getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("transform", ["grad", "jvp", "hvp"])
def test_call_without_rule_in_a_called_function_names_where_it_is_written(transform):
    x = np.ones(3)
    with pytest.raises(sg.SrcGradError) as info:
        if transform == "grad":
            sg.grad(calls_scatter)(x)
        elif transform == "jvp":
            sg.jvp(calls_scatter)(x, x)
        else:
            sg.jvp(sg.grad(calls_scatter))(x, x)
    message = str(info.value)
    here = __file__
    assert f"{here}:{_line_of(calls_scatter, 'scatter_with_add_at(x) * 2.0')}" in message
    assert f"written at {here}:{_line_of(scatter_with_add_at, 'np.add.at')}" in message
    assert "sg.defvjp" in message or "sg.defjvp" in message


def test_call_without_rule_in_the_function_itself_names_only_its_line():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(scatter_with_add_at)(np.ones(3))
    assert "written at" not in str(info.value)
    assert f":{_line_of(scatter_with_add_at, 'np.add.at')}:" in str(info.value)


COMBINE = operator.mul


def operator_functions(x, y):
    return operator.mul(x, y) + operator.truediv(x, y) - operator.neg(y) ** 2 \
        + operator.pow(x, 2.0) - operator.sub(y, x) + operator.add(x, 1.0)


def operator_function_as_a_global(x, y):
    return np.sum(COMBINE(x, y) @ operator.matmul(x, y))


def operator_division_by_zero(x):
    return operator.truediv(1.0, x) + x


@pytest.mark.parametrize("x, y", [(1.5, 0.7), (-0.3, 2.0)])
def test_operator_module_functions_differentiate_as_their_operators(x, y):
    gx, gy = sg.grad(operator_functions, wrt=(0, 1))(x, y)
    want = numeric_gradient(operator_functions, [x, y], None, 0), \
        numeric_gradient(operator_functions, [x, y], None, 1)
    np.testing.assert_allclose([gx, gy], want, rtol=1e-6)
    _, t = sg.jvp(operator_functions, wrt=(0, 1))(x, y, (1.0, 0.5))
    np.testing.assert_allclose(t, want[0] + 0.5 * want[1], rtol=1e-6)


def test_operator_function_bound_to_a_global_differentiates():
    x, y = np.array([[0.3, 0.5], [0.1, -0.4]]), np.array([[1.0, 2.0], [0.5, -1.0]])
    g = sg.grad(operator_function_as_a_global, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(g[0], numeric_gradient(operator_function_as_a_global, [x, y], None, 0),
                               rtol=1e-6)
    np.testing.assert_allclose(g[1], numeric_gradient(operator_function_as_a_global, [x, y], None, 1),
                               rtol=1e-6)


def test_operator_truediv_keeps_pythons_division_error_on_floats():
    with pytest.raises(ZeroDivisionError):
        operator_division_by_zero(0.0)
    with pytest.raises(ZeroDivisionError):
        sg.grad(operator_division_by_zero)(0.0)


def slice_of_shape_compared(x):
    k = x.shape[-1]
    return np.sum(x) * (x.shape[:1] == (k,))


def tuple_of_run_time_ints_compared(x, y):
    if (x.shape[0], 2) == (3, 2):
        return np.sum(x * y)
    return np.sum(x)


def shape_against_a_list(x):
    return np.sum(x ** 2) * (x.shape == [2, 2]) + np.sum(x)  # a tuple never equals a list


@pytest.mark.parametrize("shape", [(2, 2), (2, 3)])
def test_a_slice_of_a_shape_is_a_tuple(shape):
    x = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    value, g = sg.value_and_grad(slice_of_shape_compared)(x)
    assert np.shape(value) == () and value == slice_of_shape_compared(x)
    np.testing.assert_allclose(g, numeric_gradient(slice_of_shape_compared, [x], None, 0),
                               rtol=1e-6)


@pytest.mark.parametrize("n", [3, 4])
def test_a_tuple_holding_a_run_time_int_compares_as_a_tuple(n):
    x, y = np.linspace(0.5, 1.5, n), np.linspace(-1.0, 1.0, n)
    g = sg.grad(tuple_of_run_time_ints_compared)(x, y)
    np.testing.assert_allclose(g, numeric_gradient(tuple_of_run_time_ints_compared, [x, y], None, 0),
                               rtol=1e-6)


def test_a_shape_never_equals_a_list_as_in_python():
    x = np.ones((2, 2))
    np.testing.assert_allclose(sg.grad(shape_against_a_list)(x), np.ones((2, 2)))


def eig_of_a_rotation(x):
    w, v = np.linalg.eig(x)
    return np.sum(np.abs(w) ** 2)


def inverse_of_singular(x):
    return np.sum(np.linalg.inv(x * 0.0))


ROTATION = np.array([[0.0, 1.0], [-1.0, 0.0]]) + 0.1


@pytest.mark.parametrize("compose", ["grad", "jvp(grad)", "grad(grad-sum)"])
def test_run_time_refusal_in_a_composed_transform_names_the_users_file(compose):
    with pytest.raises(sg.SrcGradError) as info:
        if compose == "grad":
            sg.grad(eig_of_a_rotation)(ROTATION)
        elif compose == "jvp(grad)":
            sg.jvp(sg.grad(eig_of_a_rotation))(ROTATION, ROTATION)
        else:
            sg.hessian(eig_of_a_rotation)(ROTATION)
    line = _line_of(eig_of_a_rotation, "np.linalg.eig(x)")
    assert str(info.value).startswith(f"{__file__}:{line}: np.linalg.eig")


def test_run_time_error_in_a_composed_transform_notes_the_users_file():
    with pytest.raises(np.linalg.LinAlgError) as info:
        sg.jvp(sg.grad(inverse_of_singular))(np.eye(2), np.eye(2))
    line = _line_of(inverse_of_singular, "np.linalg.inv")
    assert any(f"{__file__}:{line}:" in note for note in info.value.__notes__)


def scalar_inner(u, w=0.5):
    return w * np.sqrt(w * w + 1.0) + np.sum(np.sin(u)) * 0.3


def vjp_at_a_numpy_scalar(x):
    # np.sum of a tuple is a NumPy scalar: the inner vjp casts its gradient back to one
    u = np.sum((0.34,))
    return 2.0 * sg.vjp(scalar_inner)(u, np.abs(np.cos(x) * 0.5))


@pytest.mark.parametrize("x", [np.array(0.3), 0.3, np.float64(0.3)])
def test_vjp_at_a_numpy_scalar_inside_a_forward_mode_gradient(x):
    # a gradient of one number is forward mode: the inner vjp's cast to the NumPy scalar's
    # type met a tangent being traced (an internal error before)
    got = sg.grad(vjp_at_a_numpy_scalar)(x)
    want = numeric_gradient(vjp_at_a_numpy_scalar, [x], {}, 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
