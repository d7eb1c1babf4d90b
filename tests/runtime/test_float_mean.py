"""``x.mean(...)`` on a float32/float64 tensor runs NumPy's own steps without np.mean's
wrappers (``tensor.fixed_ops._float_mean``): NumPy's values bit for bit, its warning and
nan for an empty mean, its errors, and the gradient; a mean's scalar cotangent is filled
into the input's shape (``rules.helpers.unreduce``) as an array cotangent is."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.rules.helpers import unreduce
from srcgrad.tensor.fixed_ops import _float_mean
from tests.fd import numeric_gradient


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


SHAPES_AXES = [((), None), ((1,), None), ((4,), None), ((7,), 0), ((1000,), None),
               ((3, 5), None), ((3, 5), 1), ((3, 5), -2), ((2, 3, 4), (0, 2)),
               ((129, 3), 0), ((5000,), None)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, axis", SHAPES_AXES)
def test_float_mean_is_numpys_mean_bit_for_bit(shape, axis, keepdims, dtype):
    # values spread over magnitudes, where the float32 mean's rounding (divided in
    # float64, rounded back) shows
    x = (np.random.default_rng(3).standard_normal(shape) * 1e3).astype(dtype)
    got = _float_mean(x, axis, keepdims=keepdims)
    want = np.mean(x, axis, keepdims=keepdims)
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, 0.0, -0.0, 3e38])
def test_float_mean_of_special_values_is_numpys(value):
    for dtype in (np.float32, np.float64):
        x = np.array([value, value, 1.0], dtype=dtype)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(_float_mean(x), np.mean(x))


def test_float_mean_takes_numpys_own_path_for_other_dtypes_and_empty_means():
    h = np.array([1.0, 2.0, 4.0], dtype=np.float16)
    assert _float_mean(h).dtype == np.float16
    assert _float_mean(h) == np.mean(h)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        with np.errstate(invalid="ignore"):
            assert np.isnan(_float_mean(np.zeros((0,), np.float32)))
    with pytest.raises(np.exceptions.AxisError):
        _float_mean(np.ones((2, 3)), 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, dim", [((4,), None), ((3, 5), 1), ((2, 3, 4), (0, 2)), ((), None)])
def test_tensor_mean_values_and_gradient(mode, shape, dim, dtype):
    x0 = np.random.default_rng(5).uniform(-2, 2, shape).astype(dtype)
    x = sg.tensor(x0, requires_grad=True)
    y = x.mean() if dim is None else x.mean(dim)
    np.testing.assert_array_equal(y.detach().numpy(), np.mean(x0, dim))
    assert y.dtype == x.dtype
    (y * y).sum().backward()
    fn = lambda v: float((np.mean(v, dim) ** 2).sum())  # noqa: E731
    tol = 1e-6 if dtype == np.float64 else 2e-3
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(fn, (x0,), None, 0), rtol=tol,
                               atol=tol)


def test_empty_tensor_mean_warns_and_is_nan_as_numpy():
    x = sg.tensor(np.zeros((0,), np.float32), requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x.mean()
    assert np.isnan(y.item())
    assert any("Mean of empty slice" in str(w.message) for w in caught)


def test_a_mean_subtracted_from_its_input_gradient(mode):
    # t - t.mean(): the 0-d operand's cotangent is a NumPy scalar, the mean's unreduce fills it
    x0 = np.array([0.3, -1.2, 2.0, 0.7], np.float32)
    x = sg.tensor(x0, requires_grad=True)
    t = x.sin()
    h = t - t.mean()
    (h * h).sum().backward()
    fn = lambda v: float(((np.sin(v) - np.sin(v).mean()) ** 2).sum())  # noqa: E731
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(fn, (x0.astype(np.float64),),
                                                                 None, 0), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("scalar", [np.float32(0.25), np.float64(-1.5), 2.0])
def test_unreduce_fills_a_scalar_cotangent_into_the_shape(scalar):
    got = unreduce.__srcgrad_impl__(scalar, (3, 2), None, False)
    assert type(got) is np.ndarray and got.shape == (3, 2)
    assert got.dtype == np.result_type(scalar)
    np.testing.assert_array_equal(got, np.broadcast_to(scalar, (3, 2)))
    assert got.flags.writeable
