"""A shape built from lengths read at run time, ``np.ones((n, n))`` or ``x.reshape(B, T, H,
D)``, gives its result a known rank (the tuple's length): type inference gives the tuple
examples of that length (``type_inference.py``), fitted to the array it reshapes. The causal
mask and the multi-head reshape of attention then keep their array types, so the
derivative code reads ``.shape`` and drops ``unbroadcast`` on equal shapes instead of
calling ``np.shape`` and the helpers after every operation. Each program differentiates in
reverse and forward mode and at second order against central differences."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(62)
X = rng.uniform(-1.0, 1.0, (2, 3, 4))


def causal_scores(w):
    q = X @ w
    n = X.shape[1]
    mask = np.tril(np.ones((n, n), dtype=bool))
    s = np.where(mask, q @ np.swapaxes(q, 1, 2), -1e9)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.sum((p / p.sum(-1, keepdims=True) @ q) ** 2)


def causal_bias(w):
    q = X @ w
    n = X.shape[1]
    s = q @ q.transpose(0, 2, 1) + np.triu(np.full((n, n), -1e9), 1)
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return np.sum((p / np.sum(p, axis=-1, keepdims=True) @ q) ** 2)


def heads(w):
    B, T, E = X.shape
    q = (X @ w).reshape(B, T, 2, E // 2).transpose(0, 2, 1, 3)
    s = q @ q.transpose(0, 1, 3, 2)
    o = (np.tanh(s) @ q).transpose(0, 2, 1, 3).reshape(B, T, E)
    return np.sum(o * o)


W = rng.uniform(-1.0, 1.0, (4, 4))


@pytest.mark.parametrize("fn", [causal_scores, causal_bias, heads], ids=lambda f: f.__name__)
def test_shapes_built_from_run_time_lengths_differentiate_in_all_modes(fn):
    check_all_modes(fn, W.copy())


@pytest.mark.parametrize("fn", [causal_scores, heads], ids=lambda f: f.__name__)
def test_shapes_built_from_run_time_lengths_keep_array_types(fn):
    sg.clear_cache()
    text = sg.source(sg.grad(fn), W)
    # typed arrays: their own .shape, no generic np.shape, no cast back by like()
    assert "np.shape(" not in text and "like(" not in text, text


def test_a_reshape_to_run_time_lengths_is_typed_by_the_tuple_length():
    def flat_then_square(x):
        n = x.shape[0]
        return np.sum(np.sin(x.reshape(n, n, 1)) * x.reshape(n * n)[0])

    x = rng.uniform(-1.0, 1.0, (3, 3))
    check_all_modes(flat_then_square, x)
