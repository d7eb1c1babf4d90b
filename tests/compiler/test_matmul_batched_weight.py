"""A matrix applied to a batch (``x @ W``, x of rank 3 or more): W's cotangent sums
x^T c over the batch, computed as one 2-d product of the batch's rows (issue 16,
``rules/products.py``). Checked against central differences in every mode, with the
weight also reached through ``.transpose`` as attention written with ``@`` does."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

from srcgrad.rules.products import matmul_adjoint_y

rng = np.random.default_rng(1617)
X3 = rng.uniform(-1.0, 1.0, (2, 3, 4))
X4 = rng.uniform(-1.0, 1.0, (2, 2, 3, 4))


def weight_on_a_batch(w):
    return np.sum(np.tanh(X3 @ w) ** 2)


def weight_on_a_batch_of_batches(w):
    return np.sum(np.sin(X4 @ w))


def attention_written_with_matmul(w):
    q = X3 @ w
    s = q @ q.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.sum((p @ q) ** 2)


@pytest.mark.parametrize("fn", [weight_on_a_batch, weight_on_a_batch_of_batches,
                                attention_written_with_matmul], ids=lambda f: f.__name__)
def test_weight_applied_to_a_batch_differentiates_in_all_modes(fn):
    check_all_modes(fn, rng.uniform(-1.0, 1.0, (4, 3)))


@pytest.mark.parametrize("x", [X3, X4, X3.transpose(1, 0, 2)], ids=["3d", "4d", "strided"])
def test_weight_cotangent_sums_the_batch_as_numpy_does(x):
    c = rng.uniform(-1.0, 1.0, x.shape[:-1] + (3,))
    want = np.sum(np.swapaxes(x, -1, -2) @ c, axis=tuple(range(x.ndim - 2)))
    np.testing.assert_allclose(matmul_adjoint_y(x, c, (4, 3)), want, rtol=1e-12)
