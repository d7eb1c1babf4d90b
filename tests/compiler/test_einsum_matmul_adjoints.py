"""einsum's and tensordot's adjoints run as (batched) matmul through ``contract``
(``rules/contract.py``, issue 16): the same numbers as ``np.einsum`` for every pattern a
plan specialises and every fallback, and programs built on those patterns differentiate
in reverse and forward mode and at second order against central differences."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import numeric_gradient

import srcgrad as sg
from srcgrad.rules.contract import contract

rng = np.random.default_rng(16)
KEYS = rng.uniform(-1.0, 1.0, (2, 3, 2))
VALUES = rng.uniform(-1.0, 1.0, (2, 3, 2))
W = rng.uniform(-1.0, 1.0, (2, 2))
T3 = rng.uniform(-1.0, 1.0, (3, 2, 4))

PATTERNS = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bqe,bke->bqk", [(2, 3, 4), (2, 5, 4)]),
    ("btd,bte->de", [(2, 3, 4), (2, 3, 5)]), ("ij,jk->ki", [(3, 4), (4, 2)]),
    ("ij,jk->ik", [(1, 4), (4, 1)]), ("i,i->", [(5,), (5,)]), ("bi,bj->bij", [(2, 3), (2, 4)]),
    ("ijk,k->i", [(2, 3, 4), (4,)]), ("ij,kl->", [(2, 3), (4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("ij,ij->i", [(4, 1), (4, 3)]),
    ("...ij,jk->...ik", [(2, 3, 4), (4, 5)]), ("ii->i", [(3, 3)]), ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(0, 3, 4), (0, 4, 5)]),
]


@pytest.mark.parametrize("subscripts, shapes", PATTERNS, ids=[p[0] for p in PATTERNS])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_contract_computes_what_np_einsum_computes(subscripts, shapes, dtype):
    operands = [(rng.uniform(-3, 3, s)).astype(dtype) for s in shapes]
    want = np.einsum(subscripts, *operands)
    for _ in range(2):  # the second call runs the cached plan
        got = contract(subscripts, *operands)
        assert np.shape(got) == np.shape(want) and np.result_type(got) == want.dtype
        assert isinstance(got, np.ndarray) == isinstance(want, np.ndarray)
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def batched_matmul_of_itself(x):
    return np.sum(np.sin(np.einsum("bij,bjk->bik", x, x)))


def attention_scores(x):
    q = np.einsum("btd,de->bte", KEYS, x)
    s = np.einsum("bqe,bke->bqk", q, KEYS)
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.sum(np.einsum("bqk,bke->bqe", p, VALUES) ** 2)


def chain_of_three(x):
    return np.sum(np.einsum("ij,jk,kl->il", x, W, x) ** 2)


def summed_then_contracted(x):
    return np.sum(np.cos(np.einsum("ijk,k->i", T3, x)))


def tensordot_of_itself(x):
    return np.sum(np.tensordot(T3, np.outer(x[:2], x), axes=([1, 2], [0, 1])) ** 2)


@pytest.mark.parametrize("fn, x", [
    (batched_matmul_of_itself, rng.uniform(-1.0, 1.0, (2, 2, 2))),
    (attention_scores, W.copy()),
    (chain_of_three, rng.uniform(-1.0, 1.0, (2, 2))),
    (summed_then_contracted, rng.uniform(-1.0, 1.0, 4)),
    (tensordot_of_itself, rng.uniform(-1.0, 1.0, 4)),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_einsum_patterns_run_as_matmul_differentiate_in_all_modes(fn, x):
    check_all_modes(fn, x)


def test_einsum_adjoint_is_emitted_as_a_contraction_not_a_generic_einsum():
    sg.clear_cache()
    text = sg.source(sg.grad(attention_scores))
    # the subscripts are resolved when compiling (rules/contract_to.py), run as matmul
    assert "contract_to('bte,btd->de'," in text
    assert "einsum_grad_subscripts(" not in text and "np.einsum(" not in text.split("dq")[-1]


def test_einsum_tangent_is_emitted_as_a_contraction_and_matches_differences():
    sg.clear_cache()
    text = sg.source(sg.jvp(attention_scores))
    assert "contract('bqe,bke->bqk'," in text
    x = W.copy()
    u = np.random.default_rng(3).standard_normal(x.shape)
    _, tangent = sg.jvp(attention_scores)(x, u)
    want = np.sum(numeric_gradient(attention_scores, [x], {}, 0) * u)
    np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-8)
