"""A full reduction's cotangent stays a number where two arguments' shapes meet
(``passes/spread.py``): no ``unreduce`` broadcast, ``copies`` where ``unbroadcast`` sums it,
``rebroadcast`` where a partner only fits inside. Checked against ``optimize=False`` and
central finite differences, in reverse and forward mode and at second order, including
shapes where the operand *was* broadcast (the count is not 1) and float32 arguments."""

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-z)) + (1 - y) * z)


def meeting(x, y):
    return np.mean(np.log1p(x ** 2) + (1 - y) * x)


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def _point():
    rng = np.random.default_rng(4)
    return rng.normal(size=3), rng.normal(size=(20, 3)), (rng.random(20) > 0.5) * 1.0


def test_mean_cotangent_where_two_arguments_meet_stays_a_number():
    w, X, y = _point()
    text = _code(sg.source(sg.grad(logistic), w, X, y))
    assert "unreduce" not in text and "copies(" in text, text
    assert_close(sg.grad(logistic)(w, X, y), sg.grad(logistic, optimize=False)(w, X, y),
                 rtol=1e-12, atol=1e-12)
    assert_close(sg.grad(logistic)(w, X, y), numeric_gradient(logistic, (w, X, y), None, 0))


def test_mean_cotangent_where_arguments_meet_differentiates_in_every_mode():
    w, X, y = _point()
    v = np.random.default_rng(5).normal(size=3)
    _, tangent = sg.jvp(logistic)(w, X, y, v)
    assert_close(tangent, directional_derivative(logistic, (w, X, y), {0: v}))
    assert_close(sg.hessian(logistic)(w, X, y),
                 numeric_hessian(sg.grad(logistic, optimize=False), (w, X, y), 0),
                 rtol=1e-5, atol=1e-5)
    assert_close(sg.jvp(sg.grad(logistic))(w, X, y, v)[1],
                 directional_derivative(sg.grad(logistic, optimize=False), (w, X, y), {0: v}),
                 rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("x_shape", "y_shape"), [((4,), (3, 1)), ((4,), (4,)), ((3, 4), (4,)),
                                                  ((1, 4), (3, 1)), ((4,), ())])
def test_mean_cotangent_summed_by_unbroadcast_counts_its_copies(x_shape, y_shape):
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=x_shape), rng.normal(size=y_shape)
    both = sg.grad(meeting, wrt=(0, 1))
    text = _code(sg.source(both, x, y))
    assert "unreduce" not in text, text
    for k, got in enumerate(both(x, y)):
        assert np.shape(got) == np.shape((x, y)[k])
        assert_close(got, numeric_gradient(meeting, (x, y), None, k))
    tangent = rng.normal(size=x_shape)
    assert_close(sg.jvp(meeting)(x, y, tangent)[1],
                 directional_derivative(meeting, (x, y), {0: tangent}))
    assert_close(sg.hessian(meeting)(x, y).reshape(x.size, x.size),
                 numeric_hessian(sg.grad(meeting), (x, y), 0).reshape(x.size, x.size),
                 rtol=1e-5, atol=1e-5)


def test_mean_cotangent_on_float32_arguments_keeps_their_dtype():
    w, X, y = (a.astype(np.float32) for a in _point())
    g = sg.grad(logistic)(w, X, y)
    assert g.dtype == np.float32
    assert_close(g, numeric_gradient(logistic, (w, X, y), None, 0), rtol=1e-4, atol=1e-4)


def test_generic_version_keeps_the_mean_cotangent_a_number():
    """The version for array types srcgrad does not know (Dask, CuPy): no shape facts, and
    still no broadcast of the cotangent."""
    text = _code(sg.source(sg.grad(logistic)))
    assert "unreduce" not in text and "copies(" in text, text
