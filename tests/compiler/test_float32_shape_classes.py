"""float32 and float16 gradients get the rewrites float64 ones get (issue 16, MLPs in float32).

The shape classes (``passes/shape_classes.py``) know the float dtype of values with no
type of their own (adjoints), float32 and float16 as float64: a float32 MLP's gradient
then needs no ``like()`` cast back (its products are float32 already) and multiplies the
activation's derivative into the product in place (``dh *= 1.0 - h * h``). A dtype that
NumPy 2 would promote (a float64 operand, an ``np.float64`` scalar) keeps the cast and
the plain expression. The matmul adjoints' shapes are kept across the pass rounds
(``fn.meta["shaped_like"]``), so the in-place update happens in float64 code too."""

from __future__ import annotations

import re

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg
from srcgrad.compiler.passes.shape_classes import FLOAT_DTYPES, mask_keeps_dtype
from srcgrad.rules.registry import ELEMENTWISE, RULES

rng = np.random.default_rng(3232)


def tanh_bias_mse(W1, b1, W2, b2, x, y):
    return np.mean((np.tanh(x @ W1 + b1) @ W2 + b2 - y) ** 2)


def relu_sum(W1, b1, W2, x, y):
    z = x @ W1 + b1
    h = np.where(z > 0, z, 0.0)
    return np.sum((h @ W2 - y) ** 2)


def scaled(W, x, s):
    return np.sum(np.tanh(x @ W) * s)


def mlp_point(dtype, batch=5, widths=(4, 6, 3)):
    W1 = rng.standard_normal(widths[:2]) / 2
    b1 = rng.standard_normal(widths[1]) * 0.1
    W2 = rng.standard_normal(widths[1:]) / 2
    b2 = rng.standard_normal(widths[2]) * 0.1
    x = rng.standard_normal((batch, widths[0]))
    y = rng.standard_normal((batch, widths[2]))
    return tuple(a.astype(dtype) for a in (W1, b1, W2, b2, x, y))


def _elementwise_rules():
    return sorted(name for name, rule in RULES.items()
                  if rule.kind == ELEMENTWISE and not rule.params and not rule.user)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_every_elementwise_rule_keeps_its_operands_float_dtype(dtype):
    # the shape classes give an elementwise result the dtype its operands share, a bool
    # mask among them changing nothing: checked on every rule of the table
    for name in _elementwise_rules():
        rule = RULES[name]
        n = len(rule.inputs)
        args = [np.linspace(0.1, 0.9, 6).astype(dtype).reshape(2, 3) for _ in range(n)]
        with np.errstate(all="ignore"):
            out = rule.impl(*args)
            assert np.result_type(out) == np.dtype(dtype), (name, dtype)
            for k in range(n if n > 1 else 0):
                masked = list(args)
                masked[k] = args[k] > 0.5
                try:
                    out = rule.impl(*masked)
                except TypeError:
                    continue  # (a mask where a float is needed: refused, never promoted)
                keeps = np.result_type(out) == np.dtype(dtype)
                assert keeps or not mask_keeps_dtype(rule, k), (name, k, dtype)
    # (the exception: a mask as the cotangent of ``kept(c, mask)``, whose result is c's)
    assert not mask_keeps_dtype(RULES["kept"], 0) and mask_keeps_dtype(RULES["kept"], 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_mlp_gradient_needs_no_cast_back_and_scales_in_place(dtype):
    args = mlp_point(dtype)
    wrt = (0, 1, 2, 3)
    text = sg.source(sg.grad(tanh_bias_mse, wrt=wrt), *args)
    assert "like(" not in text, text
    assert re.search(r"\w+ \*= 1(?:\.0)? - (\w+) \* \1\n", text), text
    got = sg.grad(tanh_bias_mse, wrt=wrt)(*args)
    plain = sg.grad(tanh_bias_mse, wrt=wrt, optimize=False)(*args)
    for g, p, a in zip(got, plain, args, strict=False):
        assert type(g) is np.ndarray and g.dtype == a.dtype and g.shape == a.shape
        np.testing.assert_allclose(g, p, rtol=4 * np.finfo(dtype).eps, atol=1e-30)
    if dtype != np.float16:
        for k in wrt:
            want = numeric_gradient(tanh_bias_mse, tuple(a.astype(np.float64) for a in args),
                                    {}, k)
            assert_close(got[k], want, rtol=1e-3, atol=1e-4)


def test_float32_mask_adjoint_keeps_its_dtype_without_a_cast():
    W1, b1, W2, _, x, y = mlp_point(np.float32)
    wrt = (0, 1, 2)
    text = sg.source(sg.grad(relu_sum, wrt=wrt), W1, b1, W2, x, y)
    assert "like(" not in text, text
    got = sg.grad(relu_sum, wrt=wrt)(W1, b1, W2, x, y)
    plain = sg.grad(relu_sum, wrt=wrt, optimize=False)(W1, b1, W2, x, y)
    for g, p, a in zip(got, plain, (W1, b1, W2), strict=True):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-30)


def test_float32_weights_of_a_float64_batch_are_cast_back():
    # x @ W promotes to float64: the gradient is computed in float64, then cast to W's
    W = rng.standard_normal((4, 3)).astype(np.float32)
    x = rng.standard_normal((5, 4))
    y = rng.standard_normal((5, 3)).astype(np.float32)
    text = sg.source(sg.grad(lambda W, x, y: np.sum((np.tanh(x @ W) - y) ** 2)), W, x, y)
    assert "like(" in text, text
    got = sg.grad(lambda W, x, y: np.sum((np.tanh(x @ W) - y) ** 2))(W, x, y)
    assert got.dtype == np.float32
    h = np.tanh(x @ W)
    want = (x.T @ (2 * (h - y) * (1 - h * h))).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_a_float64_numpy_scalar_is_not_multiplied_into_a_float32_array_in_place():
    # tanh(x @ W) * s with s an np.float64 is float64 (NumPy 2): its adjoint too
    W = rng.standard_normal((4, 3)).astype(np.float32)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    s = np.float64(1.0 + 2.0 ** -30)  # (rounds to 1.0 in float32)
    text = sg.source(sg.grad(scaled), W, x, s)
    assert "*= s" not in text, text
    got = sg.grad(scaled)(W, x, s)
    assert got.dtype == np.float32
    h = np.tanh(x @ W)
    want = (x.T @ (s * (1 - h * h))).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, sg.grad(scaled, optimize=False)(W, x, s))


def test_a_float32_gradient_with_special_values_matches_the_unoptimised_one():
    W1, b1, W2, b2, x, y = mlp_point(np.float32)
    x[0, 0], x[1, 1], y[2, 2] = np.inf, np.nan, 0.0
    W1[0, 0] = -0.0
    wrt = (0, 1, 2, 3)
    with np.errstate(all="ignore"):
        got = sg.grad(tanh_bias_mse, wrt=wrt)(W1, b1, W2, b2, x, y)
        plain = sg.grad(tanh_bias_mse, wrt=wrt, optimize=False)(W1, b1, W2, b2, x, y)
    for g, p in zip(got, plain, strict=True):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-30, equal_nan=True)


def test_an_empty_float32_batch_keeps_shapes_and_dtypes():
    W1, b1, W2, b2, x, y = mlp_point(np.float32, batch=0)
    got = sg.grad(lambda W1, b1, W2, b2, x, y: np.sum(
        (np.tanh(x @ W1 + b1) @ W2 + b2 - y) ** 2), wrt=(0, 1, 2, 3))(W1, b1, W2, b2, x, y)
    for g, a in zip(got, (W1, b1, W2, b2), strict=True):
        assert g.dtype == np.float32 and g.shape == a.shape and not np.any(g)


def max_relu_sum(W1, b1, W2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    return np.sum((h @ W2 - y) ** 2)


def test_float32_maximum_adjoint_with_ties_keeps_float32_without_a_cast():
    # ties make larger_picks weights (float64) at run time, though typed a bool mask:
    # taken() casts to the cotangent's dtype, so no like() is needed, ties or not
    W1, b1, W2, _, x, y = mlp_point(np.float32)
    x[0] = 0.0
    b1[:] = 0.0  # row 0 of x @ W1 + b1 is exactly 0: every element ties with 0.0
    wrt = (0, 1, 2)
    text = sg.source(sg.grad(max_relu_sum, wrt=wrt), W1, b1, W2, x, y)
    assert "like(" not in text and re.search(r"\btaken(_array)?\(", text), text
    got = sg.grad(max_relu_sum, wrt=wrt)(W1, b1, W2, x, y)
    plain = sg.grad(max_relu_sum, wrt=wrt, optimize=False)(W1, b1, W2, x, y)
    for g, p in zip(got, plain, strict=True):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-30)
