"""Small-array chains (issue 16, W2-like versions): a comparison's mask has the shape of
its operands (``passes/shape_classes.py``), so an ``np.where`` on it keeps the chain's
shape class and no adjoint needs ``unbroadcast``; a float32 result's seed is the NumPy
``float32(1.0)`` known at compile time (``passes/shapes.py``), so the forward result is not
computed when only the gradient is asked for. Checked against central finite differences
in reverse, forward and second order."""

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient, numeric_hessian


def masked_chain(x):
    a = np.tanh(x) * x + 0.5
    b = np.exp(-a * a) * a
    c = np.where(b > 0.1, b * b, -b)
    d = np.sin(c + x) * np.exp(-x * x)
    e = d * c - np.tanh(a) * 0.5
    return np.sum(e * e) + np.mean(a * b)


def _x(dtype=np.float64):
    return np.linspace(-1.0, 1.0, 9).astype(dtype)


def test_a_chain_through_a_comparison_mask_differentiates():
    x = _x()
    want = numeric_gradient(masked_chain, (x,), {}, 0)
    assert_close(sg.grad(masked_chain)(x), want)
    assert_close(sg.grad(masked_chain)(x), sg.grad(masked_chain, optimize=False)(x),
                 rtol=1e-13, atol=1e-13)
    t = np.cos(np.arange(9.0))
    assert_close(sg.jvp(masked_chain)(x, t)[1], want @ t)
    assert_close(sg.hessian(masked_chain)(x), numeric_hessian(sg.grad(masked_chain), (x,)),
                 rtol=1e-5, atol=1e-5)


def test_a_comparison_mask_keeps_the_shape_class_so_no_adjoint_is_unbroadcast():
    text = sg.source(sg.grad(masked_chain), _x())
    assert "unbroadcast" not in text, text


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_low_precision_result_seed_is_known_and_its_value_not_computed(dtype):
    x = _x(dtype)
    text = sg.source(sg.grad(masked_chain), x)
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert not any("seed_one" in line or "np.sum(" in line for line in code), text
    got = sg.grad(masked_chain)(x)
    assert got.dtype == dtype
    assert_close(got, sg.grad(masked_chain, optimize=False)(x), rtol=1e-6, atol=1e-6)
    if dtype is np.float32:
        want = numeric_gradient(masked_chain, (x.astype(np.float64),), {}, 0)
        assert_close(got, want, rtol=2e-3, atol=2e-3)
