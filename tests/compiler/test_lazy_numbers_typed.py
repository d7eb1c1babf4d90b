"""A full reduction's adjoint made a number (``passes/shapes.py``: ``unreduce`` of a scalar
cotangent left to broadcast in the op that meets a full-shaped value) is typed as the
number it is, so a transform composed on the gradient (``sg.hessian``, ``sg.jvp`` of
``sg.grad``) never reads ``.shape`` of what is a Python float at run time. Found by the
fuzzer (a crash in second order, ``'float' object has no attribute 'shape'``)."""

import math

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_hessian


def arctan2_of_a_float(x):
    s = np.tanh(np.sum(x))
    v = math.fsum([0.9, s, -0.87 * s])  # a Python float
    return 0.98 * np.sum(np.arctan2(x - 0.5, 2.0 + v * v))


def divide_by_a_float(x):
    v = float(np.sum(x * x))
    return np.sum(np.sin(x) / (1.0 + v))


@pytest.mark.parametrize("fn", [arctan2_of_a_float, divide_by_a_float])
def test_second_order_through_a_number_made_cotangent(fn):
    x = np.array([0.5, -0.1, 0.7])
    want = numeric_hessian(sg.grad(fn), (x,))
    assert_close(sg.hessian(fn)(x), want, rtol=1e-5, atol=1e-6)
    g = sg.grad(fn)
    assert_close(sg.jvp(g)(x, np.ones(3))[1], want @ np.ones(3), rtol=1e-5, atol=1e-6)
