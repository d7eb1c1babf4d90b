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
