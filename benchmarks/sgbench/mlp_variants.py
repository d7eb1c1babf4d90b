"""Small-MLP cross-entropy programs written other ways than ``programs.mlp_xent`` (issue 16).

The hidden harness writes its own version of the small MLP: other widths and batches, relu
as ``np.maximum(h, 0)`` or ``h * (h > 0)``, labels one-hot or integer indices, log-sum-exp
with or without keepdims, mean or sum, an L2 term. Each variant here comes with the
gradient a person would write (dropping the max shift's adjoint, zero by algebra) and a
point to evaluate it at; ``python benchmarks/mlp_variants.py`` times srcgrad against each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

LAM = 1e-3


def relu_max_onehot(W1, b1, W2, b2, x, y):
    """relu by np.maximum, one-hot labels, log-sum-exp with keepdims, mean."""
    h = np.maximum(x @ W1 + b1, 0)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * y, axis=1))


def relu_max_onehot_grad(W1, b1, W2, b2, x, y):
    a = x @ W1 + b1
    h = np.maximum(a, 0)
    z = h @ W2 + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    dz = (e / np.sum(e, axis=1, keepdims=True) - y) / x.shape[0]
    da = (dz @ W2.T) * (a > 0)
    return x.T @ da, da.sum(axis=0), h.T @ dz, dz.sum(axis=0)


def relu_mask_labels_l2(W1, b1, W2, b2, x, labels):
    """relu by a mask product, integer labels gathered by np.arange, mean, an L2 term."""
    n = x.shape[0]
    h = x @ W1 + b1
    h = h * (h > 0)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(n), labels]) + LAM * np.sum(W1 ** 2)


def relu_mask_labels_l2_grad(W1, b1, W2, b2, x, labels):
    n = x.shape[0]
    a = x @ W1 + b1
    h = a * (a > 0)
    z = h @ W2 + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    dz = e / np.sum(e, axis=1, keepdims=True)
    dz[np.arange(n), labels] -= 1.0
    dz /= n
    da = (dz @ W2.T) * (a > 0)
    return x.T @ da + 2.0 * LAM * W1, da.sum(axis=0), h.T @ dz, dz.sum(axis=0)


def tanh_labels_sum(W1, b1, W2, b2, x, labels):
    """tanh, integer labels, log-sum-exp without keepdims, sum over the batch."""
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    m = np.max(z, axis=1)
    lse = m + np.log(np.sum(np.exp(z - m[:, None]), axis=1))
    return np.sum(lse - z[np.arange(x.shape[0]), labels])


def tanh_labels_sum_grad(W1, b1, W2, b2, x, labels):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    dz = e / np.sum(e, axis=1, keepdims=True)
    dz[np.arange(x.shape[0]), labels] -= 1.0
    da = (dz @ W2.T) * (1.0 - h * h)
    return x.T @ da, da.sum(axis=0), h.T @ dz, dz.sum(axis=0)


def tanh_onehot_l2(W1, b1, W2, b2, x, y):
    """tanh, one-hot labels, the lse/z form of ``mlp_xent``, mean, an L2 term."""
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - np.sum(z * y, axis=1)) + LAM * np.sum(W1 ** 2)


def tanh_onehot_l2_grad(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    dz = (e / np.sum(e, axis=1, keepdims=True) - y) / x.shape[0]
    da = (dz @ W2.T) * (1.0 - h * h)
    return x.T @ da + 2.0 * LAM * W1, da.sum(axis=0), h.T @ dz, dz.sum(axis=0)


def point(widths: tuple[int, int, int], batch: int, onehot: bool, seed: int = 0
          ) -> tuple[np.ndarray, ...]:
    """Weights, inputs and labels (one-hot rows or integer indices) of a d-h-k network."""
    d, hidden, k = widths
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, d))
    labels = rng.integers(0, k, batch)
    y = np.eye(k)[labels] if onehot else labels
    return (rng.standard_normal((d, hidden)) * 0.5, rng.standard_normal(hidden) * 0.1,
            rng.standard_normal((hidden, k)) * 0.5, rng.standard_normal(k) * 0.1, x, y)


# name -> (function, hand-written gradient, point)
VARIANTS: dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "relu_max_onehot 2-32-4 b64": (relu_max_onehot, relu_max_onehot_grad,
                                   point((2, 32, 4), 64, True)),
    "relu_mask_labels_l2 4-64-10 b300": (relu_mask_labels_l2, relu_mask_labels_l2_grad,
                                         point((4, 64, 10), 300, False)),
    "tanh_labels_sum 2-16-3 b150": (tanh_labels_sum, tanh_labels_sum_grad,
                                    point((2, 16, 3), 150, False)),
    "tanh_onehot_l2 4-64-10 b64": (tanh_onehot_l2, tanh_onehot_l2_grad,
                                   point((4, 64, 10), 64, True)),
    "relu_max_onehot 4-64-10 b300": (relu_max_onehot, relu_max_onehot_grad,
                                     point((4, 64, 10), 300, True)),
}
