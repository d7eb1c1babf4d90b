"""Attention blocks as people write them, each beside its hand-written gradient.

Where it sits: programs for ``benchmarks/attention_variants.py`` (not rows of
``benchmarks/programs.py``). The ``attention`` row there is written with einsum; these are
the same block written with ``@`` and ``.transpose`` / ``np.swapaxes`` / ``.T``, a causal
mask (``np.where`` or an added ``-1e9`` / ``-inf``), a logsumexp-style normalisation and a
multi-head reshape, so the derivative code's cost is measured on the spellings a reader of
the benchmark would write rather than on the one spelling the row uses.

Each ``NAME(Wq, Wk, Wv, x)`` returns the scalar loss ``sum(o * o)``; ``NAME_grad`` returns
``(dWq, dWk, dWv)`` written by hand in the forward's own spelling.
"""

from __future__ import annotations

import numpy as np

HEADS = 2  # of the multi-head variant (the width must divide by it)


# --- @ with .transpose(0, 2, 1) -------------------------------------------------------------
def matmul_transpose(Wq, Wk, Wv, x):
    q = x @ Wq
    k = x @ Wk
    v = x @ Wv
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    return np.sum(o * o)


def _projections_grad(x, dq, dk, dv):
    """``x @ W``'s weight cotangents, the batch folded into the rows (one 2-d product)."""
    rows = x.reshape(-1, x.shape[-1]).T
    return (rows @ dq.reshape(-1, dq.shape[-1]), rows @ dk.reshape(-1, dk.shape[-1]),
            rows @ dv.reshape(-1, dv.shape[-1]))


def matmul_transpose_grad(Wq, Wk, Wv, x):
    scale = 1.0 / np.sqrt(Wq.shape[1])
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    s = q @ k.transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    do = 2.0 * o
    dp = do @ v.transpose(0, 2, 1)
    dv = p.transpose(0, 2, 1) @ do
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * scale
    return _projections_grad(x, ds @ k, ds.transpose(0, 2, 1) @ q, dv)


# --- np.swapaxes and the .T of each matrix ----------------------------------------------------
def swapaxes_scores(Wq, Wk, Wv, x):
    q = x @ Wq
    k = x @ Wk
    v = x @ Wv
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * (1.0 / np.sqrt(Wq.shape[1]))
    s = s - np.max(s, axis=-1, keepdims=True)
    e = np.exp(s)
    p = e / np.sum(e, axis=-1, keepdims=True)
    o = np.matmul(p, v)
    return np.sum(o ** 2)


swapaxes_scores_grad = matmul_transpose_grad


def per_sequence_T(Wq, Wk, Wv, x):
    """A Python loop over the batch, ``.T`` of 2-d matrices (a reader's first version)."""
    total = 0.0
    for b in range(x.shape[0]):
        xb = x[b]
        q, k, v = xb @ Wq, xb @ Wk, xb @ Wv
        s = q @ k.T / np.sqrt(q.shape[-1])
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p = p / p.sum(axis=1, keepdims=True)
        o = p @ v
        total = total + np.sum(o * o)
    return total


per_sequence_T_grad = matmul_transpose_grad


# --- a causal mask --------------------------------------------------------------------------
def _causal(n):
    return np.tril(np.ones((n, n), dtype=bool))


def causal_where(Wq, Wk, Wv, x):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    mask = np.tril(np.ones((x.shape[1], x.shape[1]), dtype=bool))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    s = np.where(mask, s, -1e9)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    return np.sum(o * o)


def causal_where_grad(Wq, Wk, Wv, x):
    scale = 1.0 / np.sqrt(Wq.shape[1])
    mask = _causal(x.shape[1])
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    s = np.where(mask, q @ k.transpose(0, 2, 1) * scale, -1e9)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    do = 2.0 * o
    dp = do @ v.transpose(0, 2, 1)
    dv = p.transpose(0, 2, 1) @ do
    ds = np.where(mask, p * (dp - (dp * p).sum(-1, keepdims=True)), 0.0) * scale
    return _projections_grad(x, ds @ k, ds.transpose(0, 2, 1) @ q, dv)


def causal_add_inf(Wq, Wk, Wv, x):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    n = x.shape[1]
    bias = np.triu(np.full((n, n), -np.inf), 1)
    s = q @ np.swapaxes(k, 1, 2) / np.sqrt(q.shape[-1]) + bias
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p = p / np.sum(p, axis=-1, keepdims=True)
    o = p @ v
    return np.sum(o * o)


def causal_add_inf_grad(Wq, Wk, Wv, x):
    scale = 1.0 / np.sqrt(Wq.shape[1])
    n = x.shape[1]
    bias = np.triu(np.full((n, n), -np.inf), 1)
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    s = q @ np.swapaxes(k, 1, 2) * scale + bias
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    do = 2.0 * o
    dp = do @ np.swapaxes(v, 1, 2)
    dv = np.swapaxes(p, 1, 2) @ do
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * scale
    return _projections_grad(x, ds @ k, np.swapaxes(ds, 1, 2) @ q, dv)


# --- logsumexp-style normalisation ------------------------------------------------------------
def logsumexp_norm(Wq, Wk, Wv, x):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    m = s.max(-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(s - m), axis=-1, keepdims=True))
    p = np.exp(s - lse)
    o = p @ v
    return np.sum(o * o)


logsumexp_norm_grad = matmul_transpose_grad


# --- multi-head: reshape to (B, T, H, D) and transpose to (B, H, T, D) -------------------------
def multi_head(Wq, Wk, Wv, x):
    B, T, E = x.shape
    D = E // HEADS
    q = (x @ Wq).reshape(B, T, HEADS, D).transpose(0, 2, 1, 3)
    k = (x @ Wk).reshape(B, T, HEADS, D).transpose(0, 2, 1, 3)
    v = (x @ Wv).reshape(B, T, HEADS, D).transpose(0, 2, 1, 3)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = (p @ v).transpose(0, 2, 1, 3).reshape(B, T, E)
    return np.sum(o * o)


def multi_head_grad(Wq, Wk, Wv, x):
    B, T, E = x.shape
    D = E // HEADS
    scale = 1.0 / np.sqrt(D)

    def heads(a):
        return a.reshape(B, T, HEADS, D).transpose(0, 2, 1, 3)

    def merge(a):
        return a.transpose(0, 2, 1, 3).reshape(B, T, E)

    q, k, v = heads(x @ Wq), heads(x @ Wk), heads(x @ Wv)
    s = q @ k.transpose(0, 1, 3, 2) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    do = 2.0 * o  # merge is a permutation: the loss's cotangent in head layout is 2 * o
    dp = do @ v.transpose(0, 1, 3, 2)
    dv = p.transpose(0, 1, 3, 2) @ do
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * scale
    return _projections_grad(x, merge(ds @ k), merge(ds.transpose(0, 1, 3, 2) @ q), merge(dv))


VARIANTS = {name: (globals()[name], globals()[name + "_grad"]) for name in (
    "matmul_transpose", "swapaxes_scores", "per_sequence_T", "causal_where", "causal_add_inf",
    "logsumexp_norm", "multi_head")}
SHAPES = ((2, 16, 8), (8, 32, 16), (4, 64, 32), (16, 128, 64))


def point(shape, seed=0):
    batch, length, width = shape
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(width)
    return (rng.standard_normal((width, width)) * scale,
            rng.standard_normal((width, width)) * scale,
            rng.standard_normal((width, width)) * scale,
            rng.standard_normal((batch, length, width)))
