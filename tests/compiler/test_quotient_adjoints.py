"""Quotients by one divisor combined (``passes/quotients.py``): a softmax's adjoint is the
hand-written ``y * (g - sum(g * y))`` (no full-size division, the exponential no longer
read by the reverse sweep), ``a/b - c/b`` is ``(a - c)/b`` and ``(a/b) * e`` is ``a * y``
where ``y = e/b`` exists. Every case matches central differences in every mode; where the
rewrite must not apply (another divisor, a quotient read twice), the result is still right."""

from __future__ import annotations

import re

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(1618)
P = rng.standard_normal(12)
W = rng.standard_normal((3, 4))


def softmax_weighted(p):
    z = np.reshape(p, (3, 4))
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    y = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(y * W)


def softmax_by_scale_then_cubed(p):
    z = np.reshape(p, (3, 4)) * 0.7
    e = np.exp(z)
    y = e / e.sum(-1, keepdims=True)
    return np.sum(y ** 3 * W)


def quotients_by_one_divisor(p):
    # a/b - c/b written by the user, and (a/b) * e beside a user's y = e/b
    x = np.reshape(p, (3, 4))
    b = np.sum(x * x, axis=1, keepdims=True) + 1.0
    y = np.cos(x) / b
    return np.sum(np.sin(x) / b - x / b) + np.sum((W / b) * np.cos(x) * y)


def quotient_read_twice(p):
    x = np.reshape(p, (3, 4))
    b = np.sum(x * x, axis=1, keepdims=True) + 1.0
    q = np.sin(x) / b
    return np.sum(q - x / b) + np.sum(q * W)


def two_divisors(p):
    x = np.reshape(p, (3, 4))
    b = np.sum(x * x, axis=1, keepdims=True) + 1.0
    c = np.sum(x, axis=1, keepdims=True) + 10.0
    e = np.exp(x)
    y = e / b
    return np.sum((W / c) * e) + np.sum(y * W) + np.sum(np.sin(x) / b - x / c)


def softmax_per_block_in_a_loop(x):
    # per iteration: the popped sum, shape and normalised values stand for the pushed ones
    total = 0.0
    for b in range(2):
        s = x[b] * 1.3
        e = np.exp(s - s.max(axis=1, keepdims=True))
        y = e / e.sum(axis=1, keepdims=True)
        total = total + np.sum(y * y * W[b].reshape(2, 2)[:, :1])
    return total


def quotient_times_a_parameter(p, w):
    # a quotient by a parameter (an operand made by no op), read by the exponential's adjoint
    x = np.reshape(p, (3, 4))
    e = np.exp(x)
    return np.sum(np.sin(e / w) * W)


CASES = [softmax_weighted, softmax_by_scale_then_cubed, quotients_by_one_divisor,
         quotient_read_twice, two_divisors]


@pytest.mark.parametrize("f", CASES)
def test_combined_quotients_differentiate_in_every_mode(f):
    check_all_modes(f, P)


def test_quotient_times_a_parameter_differentiates_in_every_mode():
    check_all_modes(lambda p: quotient_times_a_parameter(p, W + 3.0), P)
    # w itself differentiated: reverse mode against differences
    got = sg.grad(quotient_times_a_parameter, wrt=(0, 1))(P, W + 3.0)
    for i, g in enumerate(got):
        assert_close(g, numeric_gradient(quotient_times_a_parameter, [P, W + 3.0], {}, i))


def test_softmax_per_block_in_a_loop_differentiates_in_every_mode():
    check_all_modes(softmax_per_block_in_a_loop, P.reshape(2, 2, 3))


@pytest.mark.parametrize("f", [softmax_weighted, softmax_by_scale_then_cubed])
def test_softmax_adjoint_divides_nothing_and_reads_no_exponential(f):
    text = sg.source(sg.grad(f), P)
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    # the forward's one division, the normalisation itself; none in the reverse sweep
    assert sum(line.count(" / ") for line in code) == 1, text
    exponential = next(line.split(" = ")[0].strip() for line in code if "np.exp(" in line)
    reads = re.compile(rf"\b{exponential}\b")
    assert not any(reads.search(line.split(" = ", 1)[-1]) for line in code
                   if line.strip().startswith("d") and not line.strip().startswith("del ")), text


def test_softmax_adjoint_in_a_reverse_loop_divides_nothing_and_pops_no_exponential():
    text = sg.source(sg.grad(softmax_per_block_in_a_loop), P.reshape(2, 2, 3))
    reverse = text[text.index("reversed("):]
    code = [line for line in reverse.splitlines() if not line.strip().startswith("#")]
    assert not any(" / " in line for line in code), text
    assert ", 1, True)" not in reverse, text  # no unreduce along the axis: it broadcasts
    pushed = next(line for line in text.splitlines() if "tape.append(" in line)
    exponential = next(line.split(" = ")[0].strip() for line in text.splitlines()
                       if "np.exp(" in line and not line.strip().startswith("#"))
    assert not re.search(rf"\b{exponential}\b", pushed), text


def ratio_of_a_product(x, y):
    k = np.sqrt(x * x + 1.0) + y * y
    m = (x * y) / k
    return np.sum(np.tanh(m) * x)


def ratio_in_a_loop(x, y):
    for _ in range(3):
        x = np.sin(x) / (y * y + 1.0)
    return np.sum(x)


def mixed_precision_ratio(x, k):
    return np.sum(np.cos(x / k) * x)


def test_a_divisions_two_adjoints_share_their_quotient():
    # x's adjoint g / k and k's -g * m / k: one division by k, then -q * m (as by hand)
    x, y = P[:5], P[5:10] + 3.0
    text = sg.source(sg.grad(ratio_of_a_product, wrt=(0, 1)), x, y)
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum(line.count("/ k") + line.count("/= k") for line in code) == 2, text  # fwd, bwd
    got = sg.grad(ratio_of_a_product, wrt=(0, 1))(x, y)
    plain = sg.grad(ratio_of_a_product, wrt=(0, 1), optimize=False)(x, y)
    for i in (0, 1):
        assert_close(got[i], plain[i], rtol=1e-14, atol=1e-15)
        assert_close(got[i], numeric_gradient(ratio_of_a_product, [x, y], {}, i))
    check_all_modes(lambda p: ratio_of_a_product(p, P[5:10] + 3.0), x)
    check_all_modes(lambda p: ratio_in_a_loop(p, P[5:10] + 3.0), x)
    check_all_modes(lambda p: ratio_in_a_loop(P[:5], p), y)


def test_a_shared_quotient_keeps_todays_special_values():
    x = np.array([0.0, -0.0, 1e-300, 1e300, np.inf, -np.inf, np.nan, 2.0, -3.0])
    y = np.array([0.0, 1.0, 1e300, -1e-300, 2.0, np.nan, 1.0, -np.inf, np.inf])
    with np.errstate(all="ignore"):
        got = sg.grad(ratio_of_a_product, wrt=(0, 1))(x, y)
        plain = sg.grad(ratio_of_a_product, wrt=(0, 1), optimize=False)(x, y)
    for g, p in zip(got, plain):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(p))
        np.testing.assert_array_equal(np.isinf(g), np.isinf(p))
        assert_close(g[np.isfinite(p)], p[np.isfinite(p)], rtol=1e-13, atol=1e-300)


def test_a_float32_quotient_is_not_shared_with_a_float64_factor():
    x, k = P[:4].astype(np.float32), P[4:8] + 3.0
    got = sg.grad(mixed_precision_ratio, wrt=(0, 1))(x, k)
    for i, g in enumerate(got):
        want = numeric_gradient(mixed_precision_ratio, [x.astype(np.float64), k], {}, i)
        assert_close(g, want, rtol=1e-3, atol=1e-3)
    dk = sg.grad(mixed_precision_ratio, wrt=1)(x, k)
    assert dk.dtype == np.float64
    assert_close(dk, sg.grad(mixed_precision_ratio, wrt=1, optimize=False)(x, k),
                 rtol=1e-14, atol=1e-15)
