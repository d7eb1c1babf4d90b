"""Matmul adjoints of operands of known rank >= 2 are emitted as products with a
transposed operand (``passes/matmul_adjoints.py``): batched ``q @ k.transpose(0, 2, 1)``,
``np.swapaxes``, broadcast batch axes, a transpose read untransposed, ``(a @ b).T`` as
``b.T @ a.T``, and 2-d products inside a loop body. Each program differentiates in
reverse and forward mode and at second order against central differences, and its
emitted code calls no matmul adjoint helper where the product form applies."""

from __future__ import annotations

import re

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(61)
K = rng.uniform(-1.0, 1.0, (2, 3, 2))
V = rng.uniform(-1.0, 1.0, (2, 3, 2))
X = rng.uniform(-1.0, 1.0, (2, 3, 2))
B1 = rng.uniform(-1.0, 1.0, (1, 2, 3))  # a batch of one: broadcasts against K's batch


def scores_with_transpose(w):
    q = X @ w
    s = q @ (X @ w).transpose(0, 2, 1)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.sum((p / p.sum(-1, keepdims=True) @ V) ** 2)


def scores_with_swapaxes(w):
    q = X @ w
    s = np.matmul(q, np.swapaxes(K @ w, -1, -2))
    return np.sum(np.tanh(s) @ (V @ w))


def batch_broadcast_against_one(x):
    # x is (1, 2, 3) against K's batch of 2: its cotangent sums over K's batch
    return np.sum(np.sin(x @ K) * (x @ K))


def matrix_times_batch(x):
    # a matrix x on the left of a batch: its cotangent sums over the batch
    return np.sum(np.cos(x @ np.swapaxes(K, 1, 2)))


def transposed_product(m):
    return np.sum(np.sin((m.T @ m).T * m[0]))


def projection_of_a_batch(w):
    # a matrix applied to a batch: its cotangent folds the batch into rows (one 2-d product)
    return np.sum(np.sin(X @ w) * (K @ w))


def gram_in_a_loop(x):
    total = 0.0
    for b in range(X.shape[0]):
        s = (X[b] @ x) @ (X[b] @ x).T
        total = total + np.sum(np.tanh(s))
    return total


PROGRAMS = [
    (scores_with_transpose, rng.uniform(-1.0, 1.0, (2, 2))),
    (scores_with_swapaxes, rng.uniform(-1.0, 1.0, (2, 2))),
    (batch_broadcast_against_one, B1.copy()),
    (matrix_times_batch, rng.uniform(-1.0, 1.0, (3, 2))),
    (transposed_product, rng.uniform(-1.0, 1.0, (3, 3))),
    (gram_in_a_loop, rng.uniform(-1.0, 1.0, (2, 2))),
    (projection_of_a_batch, rng.uniform(-1.0, 1.0, (2, 2))),
]


@pytest.mark.parametrize("fn, x", PROGRAMS, ids=lambda v: getattr(v, "__name__", "x"))
def test_matmul_adjoints_of_known_ranks_differentiate_in_all_modes(fn, x):
    check_all_modes(fn, x)


@pytest.mark.parametrize("fn, x", [PROGRAMS[0], PROGRAMS[1], PROGRAMS[5]],
                         ids=lambda v: getattr(v, "__name__", "x"))
def test_batched_and_looped_matmul_adjoints_are_emitted_as_products(fn, x):
    sg.clear_cache()
    text = sg.source(sg.grad(fn), x)
    assert "matmul_adjoint_x(" not in text, text


def test_transpose_of_a_transpose_is_read_untransposed():
    sg.clear_cache()
    text = sg.source(sg.grad(transposed_product), np.ones((3, 3)))
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    # m.T @ m: the cotangents are m @ g and m @ g.T, never (g @ m.T).T
    assert "m @ " in code and ".T.T" not in code and ").T" not in code, text


def test_several_arguments_through_batched_scores_match_differences():
    def attention(wq, wk):
        s = (X @ wq) @ np.swapaxes(X @ wk, 1, 2)
        return np.sum(np.exp(s - s.max(-1, keepdims=True)) @ V)

    sg.clear_cache()
    wq, wk = rng.uniform(-1.0, 1.0, (2, 2)), rng.uniform(-1.0, 1.0, (2, 2))
    got = sg.grad(attention, wrt=(0, 1))(wq, wk)
    for i, g in enumerate(got):
        assert_close(g, numeric_gradient(attention, [wq, wk], {}, i), rtol=1e-6, atol=1e-8,
                     what=f"argument {i}")


def scores_in_a_loop(w):
    total = 0.0
    for b in range(X.shape[0]):
        q = X[b] @ w
        k = K[b] @ w
        total = total + np.sum(np.tanh(q @ k.T))
    return total


def test_product_transposed_in_a_loop_body_is_swapped_only_where_it_saves_a_transpose():
    x = rng.uniform(-1.0, 1.0, (2, 2))
    check_all_modes(scores_in_a_loop, x)
    text = sg.source(sg.grad(scores_in_a_loop), x)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    # the forward keeps the user's k.T; the cotangent of k is mT(ds) @ q, not (q.T @ ds).T
    assert "k.T" in code and "w.T @" not in code, text
    assert not re.search(r"np\.transpose\([^()]*@", code) and ").T" not in code, text
