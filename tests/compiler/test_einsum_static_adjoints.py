"""einsum's cotangents with static subscripts are resolved when compiling (issue 16,
``rules/contract_to.py``): the emitted adjoint is one ``contract_to`` with a constant
subscripts string, fitted to the operand's shape, and it stays right where NumPy
broadcasts an axis of length 1 against a longer one, where an index only one operand
has is summed inside the einsum, and at second order. A length read from a shape
(``q.shape[-1]``) is typed an int, so a value scaled by it keeps its shape facts."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(1616)
ROW = rng.uniform(-1.0, 1.0, (1, 4))      # broadcasts its length-1 axis against X's 3
X = rng.uniform(-1.0, 1.0, (3, 4))
T3 = rng.uniform(-1.0, 1.0, (2, 3, 4))
KEYS = rng.uniform(-1.0, 1.0, (2, 3, 2))


def row_broadcast_against_rows(r):
    # r (1, 4): einsum broadcasts its i against X's 3 rows, so r's cotangent sums them
    return np.sum(np.sin(np.einsum("ij,ij->ij", r, X)))


def rows_against_broadcast_row(x):
    # the other operand has length 1 on i: x's cotangent is broadcast along i
    return np.sum(np.einsum("ij,ij->i", x, ROW) ** 2)


def index_only_in_the_operand(x):
    # j is summed inside the einsum and only x has it: x's cotangent is broadcast along j
    return np.sum(np.cos(np.einsum("ijk,k->i", T3, x)))


def implicit_output(x):
    return np.sum(np.einsum("ij,jk", x, x.T) ** 2)


def transposing_einsum_of_one_operand(x):
    return np.sum(np.sin(np.einsum("ij->ji", x)) * X.T)


def attention_scaled_by_its_width(x):
    q = np.einsum("btd,de->bte", KEYS, x)
    s = np.einsum("bqe,bke->bqk", q, KEYS) / np.sqrt(q.shape[-1])
    s = s - np.max(s, axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.sum(np.einsum("bqk,bke->bqe", p, KEYS) ** 2)


CASES = [
    (row_broadcast_against_rows, ROW.copy()),
    (rows_against_broadcast_row, X.copy()),
    (index_only_in_the_operand, rng.uniform(-1.0, 1.0, 4)),
    (implicit_output, rng.uniform(-1.0, 1.0, (2, 3))),
    (transposing_einsum_of_one_operand, X.copy()),
    (attention_scaled_by_its_width, rng.uniform(-1.0, 1.0, (2, 2))),
]


@pytest.mark.parametrize("fn, x", CASES, ids=[c[0].__name__ for c in CASES])
def test_einsum_with_static_subscripts_differentiates_in_all_modes(fn, x):
    check_all_modes(fn, x)


@pytest.mark.parametrize("fn, x", CASES, ids=[c[0].__name__ for c in CASES])
def test_einsum_adjoint_subscripts_are_constants_of_the_emitted_code(fn, x):
    sg.clear_cache()
    text = sg.source(sg.grad(fn), x)
    assert "contract_to('" in text
    assert "einsum_grad_subscripts" not in text and "einsum_grad_shape" not in text
    # (the adjoint itself is not re-broadcast; a full sum's cotangent kept a number by the
    # shapes pass may still be, where its partner's shape only fits inside)
    assert "rebroadcast(contract_to" not in text and "rebroadcast(np.einsum" not in text


def test_scaling_by_a_shape_length_keeps_the_softmax_adjoint_free_of_unbroadcast():
    # q.shape[-1] is an int, so s / np.sqrt(q.shape[-1]) has s's shape: the adjoints of the
    # division and of the max shift need no unbroadcast back to s
    sg.clear_cache()
    text = sg.source(sg.grad(attention_scaled_by_its_width), rng.uniform(-1.0, 1.0, (2, 2)))
    assert text.count("unbroadcast(") <= 2, text  # only the two keepdims reductions' sums


def test_einsum_with_ellipsis_keeps_the_shape_dependent_adjoint():
    def batched(x):
        return np.sum(np.einsum("...ij,jk->...ik", T3, x) ** 2)

    x = rng.uniform(-1.0, 1.0, (4, 2))
    check_all_modes(batched, x)
    sg.clear_cache()
    assert "einsum_grad_subscripts" in sg.source(sg.grad(batched), x)
