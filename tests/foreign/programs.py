"""Typical gradient programs run on foreign arrays (Dask, the CuPy-like DeviceArray).

Issue 17's eleven program kinds (linear and logistic regression, an MLP, reductions with
axis/keepdims, a bias broadcast, ``np.where``, a ``for`` loop, ``einsum``, relu, a
``while`` loop) plus subscript reads and writes, ``np.max`` ties, matmul/dot adjoints,
adjoints that add at an index (``repeat``, ``take``, ``diag``) and an ``if`` on data; then
what users write next: softmax cross-entropy and logsumexp with a max shift, ``np.clip``
and ``np.abs``, column reads ``M[:, 0]``, ``np.concatenate``, ``np.linalg.norm``, a ``for``
over rows, and adjoints whose rules build masks (``triu``/``tril``, ``trace``, ``max``). Each :class:`Program` says which arguments are parameters (the ones
differentiated) and which are data, and how many ``bool()`` tests of array values the
program itself makes (a lazy array computes those, and nothing else).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def linear_regression(w, b, X, y):
    r = X @ w + b - y
    return np.sum(r ** 2) / 2


def logistic_regression(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-z)) + (1 - y) * z)


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def reductions_axis_keepdims(M):
    peak = np.max(M, axis=1, keepdims=True)
    centred = M - np.mean(M, axis=0)
    return np.sum(peak * centred) + np.sum(np.std(M, axis=1)) + np.sum(np.prod(M, axis=0))


def bias_broadcast(b1, W1, X):
    return np.sum((X @ W1 + b1) ** 2)


def where_branches(M):
    return np.sum(np.where(M > 0, M ** 2, -3 * M))


def for_loop(w, X):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(X * w) * (i + 1))
    return s


def einsum_contraction(M, N):
    G = np.einsum("ij,kj->ik", M, N)
    return np.sum(G ** 2) + np.einsum("ii->", G)


def relu_layer(M, N):
    return np.sum(np.maximum(M @ N.T, 0) ** 2)


def while_loop(M):
    s = np.sum(M ** 2)
    while s > 1.0:
        s = s / 2
    return s


def while_with_two_tests(M):
    n = 0
    while np.sum(M ** 2) > 1.0 and n < 10:
        M = M * 0.5
        n = n + 1
    return np.sum(np.sin(M))


def if_on_data(M):
    if np.sum(M) > 0:
        return np.sum(M ** 3)
    return np.sum(np.cos(M))


def subscript_reads(M):
    a = M[1:3, ::2]
    b = M[np.array([0, 2, 2, 4])]
    return np.sum(a ** 2) + np.sum(M[:, 0] * M[:, 1]) + np.sum(b ** 3) + np.sum(M[-1, ::-2])


def subscript_writes(M):
    y = M * 1.0
    y[1:3, 0] = M[0, :2] ** 2
    y[np.array([4, 4, 0]), 1] = 3.0
    y[:, 2] += M[:, 3]
    return np.sum(y ** 2)


def max_ties(M):
    return np.max(M) + np.sum(np.max(M, axis=0)) + np.sum(np.min(M, axis=1, keepdims=True))


def matmul_and_dot(A, v):
    return np.sum((A @ A.T) @ v) + np.dot(v, A @ A[0]) + np.sum(np.matmul(v, A))


def indexed_adjoints(M):
    copies = np.sum(np.repeat(M, 2, axis=0) ** 2)
    taken = np.sum(np.take(M, np.array([0, 2, 2]), axis=1) ** 2)
    return copies + taken + np.sum(np.diag(M) ** 3) + np.sum(np.diag(M[0, :5]) * M[:, :5])


def softmax_cross_entropy(W, X, onehot):
    logits = X @ W
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(onehot * log_probs, axis=1))


def logsumexp_max_shift(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def clip_and_abs(M):
    return np.sum(np.clip(M, -0.5, 0.8) ** 2) + np.sum(np.abs(M)) + np.sum(abs(M[0]) * M[1])


def column_reads(M):
    return np.sum(M[:, 0] * M[:, 1]) + np.sum(np.exp(M[:, -1])) + M[2, 3] * M[0, 0]


def concatenate_parts(M, N):
    stacked = np.concatenate([M, N], axis=0)
    side = np.concatenate([M[:3, :2], N[:, 1:3]], axis=1)
    return np.sum(stacked ** 2) + np.sum(np.sin(side)) + np.sum(np.concatenate([M[0], N[1]]))


def norms(M, v):
    return (np.linalg.norm(M) + np.linalg.norm(v) ** 2 + np.sum(np.linalg.norm(M, axis=1))
            + np.linalg.norm(M @ v))


def for_over_rows(M):
    s = 0.0
    for row in M:
        s = s + np.sum(np.tanh(row) * row)
    return s


def masks_in_rule_bodies(M):
    """Adjoints whose rules build a NumPy mask, eye or arange (moved to M's library)."""
    return (np.sum(np.triu(M) ** 2) + np.sum(np.tril(M, -1) * M) + np.trace(M[:, :5])
            + np.sum(np.max(M, axis=1)))


def _halvings(M: np.ndarray) -> int:
    """How often ``while_loop`` halves its sum: its loop test runs once more than that."""
    s = float(np.sum(M ** 2))
    return max(0, math.ceil(math.log2(s))) if s > 1.0 else 0


def _two_test_count(M: np.ndarray) -> int:
    """How often the emitted ``while_with_two_tests`` tests its array condition: once per
    trip, as the program does (counted in plain NumPy): the loop's test ``a and b`` is
    written as that expression, so the false ``a`` of the last trip is tested once."""
    count, n = 0, 0
    while True:
        count += 1
        if not (np.sum(M ** 2) > 1.0 and n < 10):
            return count
        M, n = M * 0.5, n + 1


@dataclass(frozen=True)
class Program:
    fn: Callable[..., Any]
    make: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    params: tuple[int, ...]  # positions differentiated; the others are data
    branch_tests: Callable[..., int] | None = None  # bool() calls on array values, if any
    at_kink: bool = False  # made at a point finite differences cannot measure (ties)

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def has_data(self) -> bool:
        """Some arguments are data (not differentiated)."""
        return len(self.params) < len(self.make(np.random.default_rng(0)))

    @property
    def branches(self) -> bool:
        return self.branch_tests is not None

    def tests(self, *args: np.ndarray) -> int:
        """How many ``bool()`` tests of array values the program makes on ``args``."""
        return 0 if self.branch_tests is None else self.branch_tests(*args)


def _regression(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    X = rng.normal(size=(40, 3))
    return rng.normal(size=3), X, (rng.random(40) > 0.5).astype(float)


def _tied(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    M = np.round(rng.normal(size=(5, 6)))  # rounded: many equal elements, ties at the max
    M[2, 3] = M[4, 3] = M.max()
    return (M,)


def _classes(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Softmax regression: weights (4 features, 3 classes), 30 rows, one-hot labels."""
    labels = rng.integers(0, 3, size=30)
    return rng.normal(size=(4, 3)), rng.normal(size=(30, 4)), np.eye(3)[labels]


def _matrix(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    return (rng.normal(size=(5, 6)),)


PROGRAMS = [
    Program(linear_regression, lambda r: (r.normal(size=3), r.normal(size=()),
                                          r.normal(size=(40, 3)), r.normal(size=40)), (0, 1)),
    Program(logistic_regression, _regression, (0,)),
    Program(mlp, lambda r: (r.normal(size=(3, 4)), r.normal(size=4), r.normal(size=4),
                            r.normal(size=(40, 3)), r.normal(size=40)), (0, 1, 2)),
    Program(reductions_axis_keepdims, _matrix, (0,)),
    Program(bias_broadcast, lambda r: (r.normal(size=4), r.normal(size=(3, 4)),
                                       r.normal(size=(40, 3))), (0, 1)),
    Program(where_branches, _matrix, (0,)),
    Program(for_loop, lambda r: (r.normal(size=3), r.normal(size=(40, 3))), (0,)),
    Program(einsum_contraction, lambda r: (r.normal(size=(5, 6)), r.normal(size=(5, 6))),
            (0, 1)),
    Program(relu_layer, lambda r: (r.normal(size=(5, 6)), r.normal(size=(4, 6))), (0,)),
    Program(while_loop, _matrix, (0,), branch_tests=lambda M: _halvings(M) + 1),
    Program(while_with_two_tests, _matrix, (0,), branch_tests=_two_test_count),
    Program(if_on_data, _matrix, (0,), branch_tests=lambda M: 1),
    Program(subscript_reads, _matrix, (0,)),
    Program(subscript_writes, _matrix, (0,)),
    Program(max_ties, _tied, (0,), at_kink=True),
    Program(indexed_adjoints, _matrix, (0,)),
    Program(matmul_and_dot, lambda r: (r.normal(size=(5, 6)), r.normal(size=5)), (0, 1)),
    # issue 17's second set: what users write (softmax, logsumexp, clip/abs, column reads,
    # concatenate, norms, a for over rows)
    Program(softmax_cross_entropy, _classes, (0,)),
    Program(logsumexp_max_shift, lambda r: (r.normal(size=7),), (0,)),
    Program(clip_and_abs, _matrix, (0,)),
    Program(column_reads, _matrix, (0,)),
    Program(concatenate_parts, lambda r: (r.normal(size=(5, 6)), r.normal(size=(3, 6))),
            (0, 1)),
    Program(norms, lambda r: (r.normal(size=(5, 6)), r.normal(size=6)), (0, 1)),
    Program(for_over_rows, _matrix, (0,)),
    Program(masks_in_rule_bodies, _matrix, (0,)),
]
