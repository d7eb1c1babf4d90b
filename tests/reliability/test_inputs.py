"""Input edge cases, through the compiler and the runtime (API.md §1, §3; issue 8 "Inputs").

What ``tests/compiler/test_corpus_types.py`` (gradient types over the corpus),
``test_api_basic.py`` (float32 / 0-d basics) and ``test_errors.py`` (``wrt`` by position,
missing names, out of range) already check is not repeated. Here: float32 and Python floats
through control flow and writes, empty arrays, non-contiguous arrays, NaN and inf, and the
``wrt`` cases those files leave out (a name of an int argument, a bool, NumPy integers, an
int inside a tuple).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcgrad as sg


def loop_and_write(x, w):
    acc = x * 0.5
    for i in range(2):
        acc = np.tanh(acc * w) + acc
    z = np.zeros_like(acc)
    z[0] = np.sum(acc)
    return np.sum(z * acc)


def with_float64_constant(x):
    return np.sum(x * np.array([0.25, 0.5, 1.0]))  # NumPy promotes float32 to float64


def float_in_branch(x, y):
    if x > 0.0:
        y = y * x
    return y * x


def sum_of_squares(x):
    return np.sum(x * x)


def mean_of_rows(x):
    return np.sum(np.mean(x, axis=1) ** 2)


def elementwise_mix(x, y):
    return np.sum(np.sin(x) * y + np.exp(x) / (1.0 + y * y))


def log_of(x):
    return np.sum(np.log(x))


def power_of_int(x, n):
    return np.sum(x ** n)


def flagged(x, flag):
    return np.sum(x * 2.0) if flag else np.sum(x)


def _grads(fn, args, wrt, optimize=True):
    result = sg.grad(fn, wrt=wrt, optimize=optimize)(*args)
    return result if isinstance(wrt, tuple) else (result,)


def _runtime_grads(fn, args):
    tensors = [sg.tensor(a, requires_grad=True) for a in args]
    fn(*tensors).backward()
    return [t.grad for t in tensors]


# --- dtypes and types through control flow ------------------------------------------------

@pytest.mark.parametrize("optimize", [True, False])
def test_float32_stays_float32_through_loops_and_writes(optimize):
    x = np.array([0.3, -0.2, 0.5], dtype=np.float32)
    w = np.array([1.1, 0.7, -0.4], dtype=np.float32)
    dx, dw = _grads(loop_and_write, (x, w), (0, 1), optimize)
    assert dx.dtype == np.float32 and dw.dtype == np.float32
    want = _grads(loop_and_write, (x.astype(np.float64), w.astype(np.float64)), (0, 1))
    np.testing.assert_allclose(dx, want[0], rtol=1e-5)
    np.testing.assert_allclose(dw, want[1], rtol=1e-5)


def test_float32_promoted_by_a_float64_constant_is_cast_back():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    got = sg.grad(with_float64_constant)(x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([0.25, 0.5, 1.0], dtype=np.float32))


def test_runtime_float32_gradient_is_float32_and_matches_the_compiler():
    x = np.array([0.3, -0.2, 0.5], dtype=np.float32)
    w = np.array([1.1, 0.7, -0.4], dtype=np.float32)
    rt = _runtime_grads(loop_and_write, (x, w))
    assert all(g.dtype == sg.float32 for g in rt)
    compiled = _grads(loop_and_write, (x, w), (0, 1))
    for g, c in zip(rt, compiled, strict=True):
        np.testing.assert_allclose(g.numpy(), c, rtol=1e-5)


@pytest.mark.parametrize("x", [0.7, -0.7])
def test_python_floats_give_python_floats_through_a_branch(x):
    dx, dy = _grads(float_in_branch, (x, 1.5), (0, 1))
    assert type(dx) is float and type(dy) is float
    assert dx == pytest.approx(2 * 1.5 * x if x > 0 else 1.5)
    assert dy == pytest.approx(x * x if x > 0 else x)


# --- empty and non-contiguous arrays --------------------------------------------------------

@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0)])
@pytest.mark.parametrize("optimize", [True, False])
def test_empty_array_gives_an_empty_gradient(shape, optimize):
    x = np.zeros(shape)
    got = sg.grad(sum_of_squares, optimize=optimize)(x)
    assert type(got) is np.ndarray and got.shape == shape and got.dtype == np.float64


def test_empty_array_value_and_grad_and_runtime():
    x = np.zeros((0, 3), dtype=np.float32)
    value, got = sg.value_and_grad(sum_of_squares)(x)
    assert value == 0.0 and got.shape == (0, 3) and got.dtype == np.float32
    (rt,) = _runtime_grads(sum_of_squares, (x,))
    assert tuple(rt.shape) == (0, 3) and rt.dtype == sg.float32


def test_empty_rows_mean_is_nan_like_numpy_not_a_crash():
    x = np.zeros((2, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of an empty slice, as NumPy
        got = sg.grad(mean_of_rows)(x)
    assert got.shape == (2, 0)


def _non_contiguous():
    base = np.linspace(-1.0, 1.0, 24).reshape(4, 6)
    return {
        "strided": base[::2, ::3],  # (2, 2), both axes strided
        "transposed": base[:2, :3].T,  # (3, 2), Fortran order
        "reversed": base[::-1, ::-2][:2, :2],  # negative strides
        "fortran": np.asfortranarray(base[:2, :2]),
        "broadcast-view": np.broadcast_to(np.array([0.3, -0.4]), (2, 2)),  # zero stride
    }


@pytest.mark.parametrize("name", list(_non_contiguous()))
def test_non_contiguous_arguments_differentiate_and_stay_untouched(name):
    x = _non_contiguous()[name]
    y = np.full(x.shape, 0.5)
    before = x.copy()
    dx, dy = _grads(elementwise_mix, (x, y), (0, 1))
    assert dx.shape == x.shape and dy.shape == y.shape
    np.testing.assert_allclose(dx, np.cos(x) * y + np.exp(x) / (1.0 + y * y), rtol=1e-12)
    np.testing.assert_allclose(dy, np.sin(x) - 2 * y * np.exp(x) / (1.0 + y * y) ** 2,
                               rtol=1e-12)
    np.testing.assert_array_equal(x, before)
    rt = _runtime_grads(elementwise_mix, (np.array(x), y))
    np.testing.assert_allclose(rt[0].numpy(), dx, rtol=1e-12)
    np.testing.assert_allclose(rt[1].numpy(), dy, rtol=1e-12)


# --- NaN and inf ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("optimize", [True, False])
def test_nan_and_inf_propagate_elementwise_without_raising(bad, optimize):
    x = np.array([0.5, bad, -0.25])
    y = np.array([1.0, 2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = [np.cos(x) * y + np.exp(x) / (1.0 + y * y),
                np.sin(x) - 2 * y * np.exp(x) / (1.0 + y * y) ** 2]
        got = _grads(elementwise_mix, (x, y), (0, 1), optimize)
        rt = _runtime_grads(elementwise_mix, (x, y))
    for g, r, w in zip(got, rt, want, strict=True):
        np.testing.assert_allclose(g[[0, 2]], w[[0, 2]], rtol=1e-12)  # clean ones stay clean
        np.testing.assert_allclose(g, w, rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(r.numpy(), g, rtol=1e-12, equal_nan=True)


def test_log_of_zero_and_negative_gives_inf_and_nan_not_an_error():
    x = np.array([0.0, -1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = sg.grad(log_of)(x)
        (rt,) = _runtime_grads(log_of, (x,))
    np.testing.assert_array_equal(got, [np.inf, -1.0, 0.5])
    np.testing.assert_array_equal(rt.numpy(), got)


def test_a_nan_float_argument_gives_a_nan_float():
    got = sg.grad(sum_of_squares)(float("nan"))
    assert type(got) is float and np.isnan(got)


# --- wrt naming what cannot be differentiated ------------------------------------------------

@pytest.mark.parametrize("n", [3, np.int64(3), np.array([2, 3, 1])],
                         ids=["int", "np.int64", "int-array"])
@pytest.mark.parametrize("wrt", ["n", ("x", "n"), (0, 1)], ids=["name", "name-tuple", "pos-tuple"])
def test_wrt_naming_an_integer_argument_is_refused(n, wrt):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(power_of_int, wrt=wrt)(np.array([0.5, 1.5, 2.0]), n)
    text = str(info.value)
    assert "int" in text.lower() and "n" in text, text


def test_wrt_naming_a_bool_argument_is_refused():
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(flagged, wrt="flag")(np.array([0.5, 1.5]), True)
    assert "bool" in str(info.value).lower() and "flag" in str(info.value), str(info.value)


def test_integer_arguments_not_named_are_never_differentiated():
    x = np.array([0.5, 1.5, 2.0])
    np.testing.assert_allclose(sg.grad(power_of_int)(x, np.array([2, 3, 1])),
                               [1.0, 3 * 1.5 ** 2, 1.0])
    np.testing.assert_allclose(sg.grad(flagged)(x, True), [2.0, 2.0, 2.0])
