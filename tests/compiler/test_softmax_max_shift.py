"""Softmax cross-entropy with the max shift (``z - np.max(z, axis=1, keepdims=True)``, then
a log-sum-exp), the small MLP of issue 16's benchmark: its gradient runs through the
one-axis ``max_weights`` and the reshaping ``unreduce``, and must match central
differences in reverse and forward mode and at second order, ties in the max included."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

rng = np.random.default_rng(160)
X = rng.standard_normal((6, 2))
Y = np.eye(3)[[0, 2, 1, 1, 0, 2]]
W1 = rng.standard_normal((2, 4)) * 0.5
B1 = rng.standard_normal(4) * 0.1


def cross_entropy_of_output_weights(W2):
    h = np.tanh(X @ W1 + B1)
    z = h @ W2
    z = z - np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - np.sum(z * Y, axis=1))


def cross_entropy_of_logits(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    return np.mean(np.log(np.sum(np.exp(z), axis=-1)) - np.sum(z * Y, axis=-1))


@pytest.mark.parametrize("fn, x", [
    (cross_entropy_of_output_weights, rng.standard_normal((4, 3))),
    (cross_entropy_of_logits, rng.standard_normal((6, 3))),
    (cross_entropy_of_logits, np.repeat(rng.standard_normal((6, 1)), 3, axis=1)),  # ties
], ids=["mlp", "logits", "tied-logits"])
def test_softmax_cross_entropy_with_max_shift_differentiates(fn, x):
    check_all_modes(fn, x)
