"""Gradients of a CuPy-like array type: the emitted code only dispatches, never converts.

``DeviceArray`` (devicearray.py) answers NumPy's protocols as CuPy does: NumPy's own
functions only, ``NotImplemented`` for anything else (a srcgrad helper offered to it would
fail), and no conversion to an ndarray. The same programs as on Dask must give
``DeviceArray`` gradients equal to finite differences of the NumPy program, with no
function refused and ``bool()`` only where the program itself tests a value.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian
from tests.foreign import programs
from tests.foreign.devicearray import DeviceArray
from tests.foreign.programs import PROGRAMS, Program

# Every array on the device: CuPy refuses host arrays in arithmetic with its own (so a
# program mixing NumPy parameters into device data fails in its own first line, as
# test_cupy_like_array_refuses_host_arrays_in_arithmetic shows).
_CASES = [(p, True) for p in PROGRAMS]


def _on_device(fn, *args):
    """``fn(*args)``, with the DeviceArray conversions and refusals it caused."""
    DeviceArray.conversions = 0
    DeviceArray.refused = []
    result = fn(*args)
    return result, DeviceArray.conversions, DeviceArray.refused


def _leaves(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize(("program", "all_on_device"), _CASES,
                         ids=[f"{p.name}-{'all' if e else 'data'}" for p, e in _CASES])
def test_cupy_like_gradient_stays_on_the_device_and_equals_finite_differences(
        program: Program, all_on_device: bool):
    args = program.make(np.random.default_rng(27))
    moved = tuple(DeviceArray(a) if all_on_device or i not in program.params else a
                  for i, a in enumerate(args))
    grad = sg.grad(program.fn, wrt=program.params)
    result, tests, refused = _on_device(grad, *moved)
    assert refused == [], "a function CuPy does not have was offered to the array"
    assert tests == program.tests(*args)
    on_numpy = _leaves(grad(*args))
    for k, (place, g) in enumerate(zip(program.params, _leaves(result), strict=True)):
        assert type(g) is DeviceArray, f"gradient of argument {place} is {type(g).__name__}"
        assert g.shape == args[place].shape and g.dtype == args[place].dtype
        assert_close(g.get(), on_numpy[k], rtol=1e-12, atol=1e-12, what="device vs NumPy")
        if not program.at_kink:
            assert_close(g.get(), numeric_gradient(program.fn, args, None, place))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_cupy_like_forward_mode_stays_on_the_device(program: Program):
    args = program.make(np.random.default_rng(28))
    place = program.params[0]
    tangent = np.random.default_rng(29).normal(size=args[place].shape)
    (value, derivative), tests, refused = _on_device(
        sg.jvp(program.fn, wrt=place), *map(DeviceArray, args), DeviceArray(tangent))
    assert refused == [] and tests == program.tests(*args)
    assert type(derivative) is DeviceArray
    assert_close(value.get(), program.fn(*args), what="value")
    if not program.at_kink:
        assert_close(derivative.get(), directional_derivative(program.fn, args, {place: tangent}))


def test_cupy_like_value_and_grad_of_a_float_parameter_is_a_0d_device_array():
    X = np.random.default_rng(5).normal(size=(30, 2))

    def loss(scale, X):
        return np.sum(np.tanh(scale * X) ** 2)

    (value, g), tests, refused = _on_device(sg.value_and_grad(loss), 0.3, DeviceArray(X))
    assert refused == [] and tests == 0
    assert type(g) is DeviceArray and g.shape == ()
    assert_close(g.get(), numeric_gradient(loss, (0.3, X), None, 0))


def test_cupy_like_array_refuses_conversion_and_foreign_functions():
    """The stand-in is as strict as CuPy: what these tests pass is not for free."""
    from srcgrad.rules.helpers import unbroadcast

    x = DeviceArray(np.ones((2, 3)))
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(x)
    with pytest.raises(TypeError):
        float(DeviceArray(np.float64(1.0)))
    assert x.__array_function__(unbroadcast, (DeviceArray,), (x, (3,)), {}) is NotImplemented
    assert type(np.sum(x, axis=0)) is DeviceArray


def test_cupy_like_array_refuses_host_arrays_in_arithmetic():
    """As CuPy: a host (NumPy) array in a ufunc, an operator or a NumPy function that
    dispatches on it is a TypeError; numbers, NumPy scalars and host index arrays are not."""
    x = DeviceArray(np.arange(4.0))
    host = np.ones(4)
    for mixed in (lambda: x + host, lambda: host * x, lambda: np.where(host > 0, x, 0),
                  lambda: np.concatenate([x, host]), lambda: x * np.array(2.0)):
        with pytest.raises(TypeError, match="Unsupported type"):
            mixed()
    assert type(x * 2.0 + np.float64(1.0)) is DeviceArray
    assert_close(np.take(x, np.array([3, 0])).get(), np.array([3.0, 0.0]), what="take")
    assert_close(x[np.array([1, 1])].get(), np.array([1.0, 1.0]), what="index")


_SMALL = [(programs.logsumexp_max_shift, lambda r: (r.normal(size=5),)),
          (programs.softmax_cross_entropy, lambda r: programs._classes(r)),
          (programs.column_reads, lambda r: (r.normal(size=(3, 4)),)),
          (programs.for_over_rows, lambda r: (r.normal(size=(3, 4)),)),
          (programs.masks_in_rule_bodies, lambda r: (r.normal(size=(3, 4)),)),
          (programs.reductions_axis_keepdims, lambda r: (r.normal(size=(3, 4)),))]


@pytest.mark.parametrize(("fn", "make"), _SMALL, ids=[f.__name__ for f, _ in _SMALL])
def test_cupy_like_hessian_and_jvp_of_a_small_device_array(fn, make):
    args = make(np.random.default_rng(30))
    v = np.random.default_rng(31).normal(size=args[0].shape)
    H, tests, refused = _on_device(sg.hessian(fn), *map(DeviceArray, args))
    assert refused == [] and tests == 0
    assert type(H) is DeviceArray and H.shape == args[0].shape * 2
    assert_close(H.get(), numeric_hessian(sg.grad(fn), args, 0), rtol=1e-5, atol=1e-5)
    (_, t), tests, refused = _on_device(sg.jvp(fn), *map(DeviceArray, args), DeviceArray(v))
    assert refused == [] and type(t) is DeviceArray
    assert_close(t.get(), directional_derivative(fn, args, {0: v}))


def test_srcgrad_helpers_run_themselves_on_a_cupy_like_array():
    """rules/dispatch.py offers a helper primitive only to types that know srcgrad's
    primitives; on a CuPy-like array it runs its own dispatching implementation."""
    from srcgrad.rules.helpers import scatter_add, unbroadcast

    DeviceArray.refused = []
    x = DeviceArray(np.arange(6.0).reshape(2, 3))
    summed = unbroadcast(x, (3,))
    assert type(summed) is DeviceArray and DeviceArray.refused == []
    assert_close(summed.get(), np.arange(6.0).reshape(2, 3).sum(axis=0), what="unbroadcast")
    index = (np.array([0, 1, 0]), np.array([2, 2, 2]))
    scattered = scatter_add(DeviceArray(np.array([1.0, 2.0, 4.0])), (2, 3), index)
    expected = np.zeros((2, 3))
    np.add.at(expected, index, [1.0, 2.0, 4.0])
    assert type(scattered) is DeviceArray
    assert_close(scattered.get(), expected, what="scatter_add with repeated positions")


def _sorted_rows_weighted(M):
    return np.sum(np.sort(M, axis=1) ** 2 * M)


def _sorted_flat_cubed(M):
    return np.sum(np.sort(M, axis=None) ** 3)


@pytest.mark.parametrize("fn", [_sorted_rows_weighted, _sorted_flat_cubed],
                         ids=lambda f: f.__name__)
def test_cupy_like_sort_gradient_puts_cotangents_back_on_the_device(fn):
    # np.sort's adjoint scatters by the sorting order: on a device array it gathers by the
    # inverse order instead of writing into host zeros
    M = np.random.default_rng(31).normal(size=(4, 5))
    result, _, refused = _on_device(sg.grad(fn), DeviceArray(M))
    assert refused == [] and type(result) is DeviceArray
    assert_close(result.get(), numeric_gradient(fn, (M,), None, 0))
    rows = np.random.default_rng(32).normal(size=(4, 5))
    _, tangent = sg.jvp(fn)(DeviceArray(M), DeviceArray(rows))
    assert_close(np.asarray(tangent.get() if isinstance(tangent, DeviceArray) else tangent),
                 directional_derivative(fn, (M,), {0: rows}))


def _median_of_columns(M):
    return np.sum(np.median(M, axis=0) ** 2)


def _padded_by_reflection(M):
    return np.sum(np.pad(M, ((1, 2), (0, 1)), mode="reflect") ** 2)


def _padded_at_the_edges(M):
    return np.sum(np.pad(M, 2, mode="edge") ** 2)


def _cumulative_products(M):
    return np.sum(np.cumprod(M, axis=0))


def _grid_of_two_rows(M):
    a, b = np.meshgrid(M[0], M[1])
    return np.sum(a * b * b)


@pytest.mark.parametrize("fn", [_median_of_columns, _padded_by_reflection,
                                _padded_at_the_edges, _cumulative_products, _grid_of_two_rows],
                         ids=lambda f: f.__name__)
def test_cupy_like_rule_bodies_make_their_masks_and_zeros_on_the_device(fn):
    # each adjoint built a host array (put_along_axis into zeros, bincount, np.tri, zeros,
    # np.array of a broadcast) that CuPy would refuse beside a device array
    M = np.random.default_rng(33).normal(size=(5, 4))
    result, conversions, refused = _on_device(sg.grad(fn), DeviceArray(M))
    assert refused == [] and type(result) is DeviceArray
    assert_close(result.get(), numeric_gradient(fn, (M,), None, 0))
