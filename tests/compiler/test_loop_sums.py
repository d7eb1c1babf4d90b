"""Reverse loops over a batch (``passes/loop_sums.py``, ``passes/matmul_lengths.py``,
``hoist.py``'s shape lengths, ``shapes.py``'s seed of a loop-carried number):

- the adjoint of a weight read on every iteration is summed in place (``dW += dW_1``),
  only into the buffer ``zeros_of`` made, never into an array anyone else can see;
- ``np.sqrt(q.shape[-1])`` of a product ``q = xb @ Wq`` is read from ``Wq`` and computed
  once, before the loop (nothing pushed on the tape per iteration);
- a result accumulated from ``0.0`` (a Python float, then a NumPy scalar) is seeded with
  ``1.0``: no ``seed_one``/``unreduce`` call, no materialised array of ones.

Values are checked against the unoptimised derivative, central differences and the
hand-written gradient, including the aliasing cases in-place updates could get wrong.
"""

import re

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import numeric_gradient


def per_sequence(Wq, Wk, Wv, x):
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


def hand(Wq, Wk, Wv, x):
    scale = 1.0 / np.sqrt(Wq.shape[1])
    dWq, dWk, dWv = np.zeros_like(Wq), np.zeros_like(Wk), np.zeros_like(Wv)
    for xb in x:
        q, k, v = xb @ Wq, xb @ Wk, xb @ Wv
        s = q @ k.T * scale
        p = np.exp(s - s.max(1, keepdims=True))
        p = p / p.sum(1, keepdims=True)
        do = 2.0 * (p @ v)
        dp = do @ v.T
        ds = p * (dp - (dp * p).sum(1, keepdims=True)) * scale
        dWq += xb.T @ (ds @ k)
        dWk += xb.T @ (ds.T @ q)
        dWv += xb.T @ (p.T @ do)
    return dWq, dWk, dWv


def _point(batch=3, length=5, width=4, dtype=np.float64):
    rng = np.random.default_rng(3)
    w = [rng.standard_normal((width, width)).astype(dtype) / 2 for _ in range(3)]
    return (*w, rng.standard_normal((batch, length, width)).astype(dtype))


def _reverse_loop(text: str) -> str:
    return text.split("reversed(range(")[1].split("\n    return")[0]


def test_weight_adjoints_are_summed_in_place_and_the_seed_is_one():
    args = _point()
    text = sg.source(sg.grad(per_sequence, wrt=(0, 1, 2)), *args)
    loop = _reverse_loop(text)
    for name in ("dWq", "dWk", "dWv"):
        assert f"{name} += " in loop, text
        assert f"{name} = {name} +" not in loop, text
    assert "seed_one(" not in text and "unreduce(" not in text, text


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_the_scale_of_a_products_width_leaves_the_loop():
    args = _point()
    text = _code(sg.source(sg.grad(per_sequence, wrt=(0, 1, 2)), *args))
    forward = text.split("for i in range(")[1].split("for i_1 in")[0]
    before = text.split("for i in range(")[0]
    assert "np.sqrt(" in before and "np.sqrt(" not in forward, text
    scale = before.split(" = np.sqrt(")[0].split()[-1]  # (its name, read in both loops)
    pushed = forward.split("tape.append")[1].split("\n")[0]
    assert not re.search(r"\bq\.shape", forward) and scale not in pushed, text


@pytest.mark.parametrize("shape", [(3, 5, 4), (1, 7, 2), (2, 1, 3)])
def test_values_match_the_hand_written_unoptimised_and_differences(shape):
    args = _point(*shape)
    got = sg.grad(per_sequence, wrt=(0, 1, 2))(*args)
    plain = sg.grad(per_sequence, wrt=(0, 1, 2), optimize=False)(*args)
    for g, h, u in zip(got, hand(*args), plain):
        assert g.dtype == np.float64 and g.flags.writeable
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(g, u, rtol=1e-12, atol=1e-13)
    for i in range(3):
        np.testing.assert_allclose(got[i], numeric_gradient(per_sequence, args, {}, i),
                                   rtol=1e-6, atol=1e-8)


def test_no_iteration_gives_fresh_zeros():
    Wq, Wk, Wv, x = _point()
    empty = x[:0]
    got = sg.grad(per_sequence, wrt=(0, 1, 2))(Wq, Wk, Wv, empty)
    assert all(g.shape == Wq.shape and not g.any() for g in got)
    assert len({id(g) for g in got}) == 3 and not any(np.shares_memory(g, w)
                                                      for g in got for w in (Wq, Wk, Wv))


def test_one_array_passed_for_every_weight_is_not_written_and_gets_three_buffers():
    W, _, _, x = _point()
    before = W.copy()
    df = sg.grad(per_sequence, wrt=(0, 1, 2))
    got = df(W, W, W, x)
    np.testing.assert_array_equal(W, before)
    assert len({id(g) for g in got}) == 3
    assert not any(np.shares_memory(a, b) for i, a in enumerate(got) for b in got[i + 1:])
    for g, h in zip(got, hand(W, W, W, x)):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-13)


def test_a_second_call_leaves_the_first_calls_gradients_alone():
    df = sg.grad(per_sequence, wrt=(0, 1, 2))
    args = _point()
    first = df(*args)
    kept = [g.copy() for g in first]
    df(*_point(batch=2, length=3))
    for g, k in zip(first, kept):
        np.testing.assert_array_equal(g, k)


def test_the_softmax_adjoint_in_the_loop_updates_its_own_buffer():
    text = _code(sg.source(sg.grad(per_sequence, wrt=(0, 1, 2)), *_point()))
    loop = _reverse_loop(text)
    assert " -= unbroadcast(" in loop and loop.count(" *= ") == 1 and loop.count(" /= ") == 1, \
        text


def test_float32_weights_keep_their_dtype_and_sum_functionally():
    args = _point(dtype=np.float32)
    text = sg.source(sg.grad(per_sequence, wrt=(0, 1, 2)), *args)
    assert "dWq += " not in _reverse_loop(text), text  # (a float32 buffer: no narrowing)
    got = sg.grad(per_sequence, wrt=(0, 1, 2))(*args)
    want = hand(*(a.astype(np.float64) for a in args))
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=1e-5)


def shared_weight_twice(W, x):
    total = 0.0
    for b in range(x.shape[0]):
        h = np.tanh(x[b] @ W)
        total = total + np.sum(h @ W)  # W's adjoint: two contributions per iteration
    return total


def nested(W, x):
    total = 0.0
    for b in range(x.shape[0]):
        h = x[b]
        for t in range(2):
            h = np.tanh(h @ W)
        total = total + np.sum(h * h)
    return total


def carried_weight(W, x):
    acc = W * 1.0  # the user's own array, carried and updated by the loop
    for b in range(x.shape[0]):
        acc = acc + np.tanh(x[b] @ W)
    return np.sum(acc * acc)


def views_of_cotangents(W, x):
    total = 0.0
    for b in range(x.shape[0]):
        a = x[b] @ W
        s = a / a.sum(axis=1, keepdims=True)
        total = total + np.sum(s.T * s.T[::-1]) + np.sum(s[:, :1] * s)
    return total


def read_again(W, x):
    total = 0.0
    for b in range(x.shape[0]):
        a = np.tanh(x[b] @ W)
        z = a * a
        total = total + np.sum(z / 2.0) + np.sum(z * a) - np.sum(np.exp(-z) * z)
    return total


@pytest.mark.parametrize("fn", [shared_weight_twice, nested, carried_weight,
                                views_of_cotangents, read_again])
def test_other_accumulations_stay_right(fn):
    rng = np.random.default_rng(5)
    W, x = rng.standard_normal((3, 3)) / 2, rng.standard_normal((4, 3, 3))
    before = (W.copy(), x.copy())
    got = sg.grad(fn)(W, x)
    np.testing.assert_array_equal(W, before[0])
    np.testing.assert_array_equal(x, before[1])
    np.testing.assert_allclose(got, sg.grad(fn, optimize=False)(W, x), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got, numeric_gradient(fn, (W, x), {}, 0), rtol=1e-6, atol=1e-8)


def test_the_loop_carried_numbers_seed_is_one_for_floats_and_numpy_scalars():
    def f(x):
        total = 0.0
        for i in range(x.shape[0]):
            total = total + np.sum(np.sin(x[i]))
        return total

    x = np.linspace(-1.0, 2.0, 6).reshape(3, 2)
    text = sg.source(sg.grad(f), x)
    assert "seed_one(" not in text and "unreduce(" not in text, text
    np.testing.assert_allclose(sg.grad(f)(x), np.cos(x), rtol=1e-15)
    assert sg.grad(f)(x[:0]).shape == (0, 2)
    value, g = sg.value_and_grad(f)(x)
    assert value == f(x) and type(value) is type(f(x))
    np.testing.assert_allclose(g, np.cos(x), rtol=1e-15)


def width_of_a_vector_product(A, v, x):
    total = 0.0
    for b in range(x.shape[0]):
        y = (x[b] * A) @ v  # v 1-d: the product has no axis of v's
        total = total + np.sum(y) / np.sqrt(y.shape[-1]) + np.sum(A.T @ A) / (A.T @ A).shape[-2]
    return total


def test_a_1d_operand_keeps_the_products_own_length():
    rng = np.random.default_rng(2)
    A, v, x = rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal((2, 4, 3))
    df = sg.grad(width_of_a_vector_product, wrt=(0, 1))
    for got, i in zip(df(A, v, x), (0, 1)):
        np.testing.assert_allclose(
            got, numeric_gradient(width_of_a_vector_product, (A, v, x), {}, i),
            rtol=1e-6, atol=1e-8)


def past_the_rank(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(x) * x.shape[3]
    return total


def test_a_length_past_the_rank_is_read_only_where_the_user_reads_it():
    x = np.ones((2, 2))
    assert sg.grad(past_the_rank)(x, 0).shape == (2, 2)  # (the loop never runs)
    with pytest.raises(IndexError):
        sg.grad(past_the_rank)(x, 1)


def batched(Wq, Wk, Wv, x):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ v
    return np.sum(o * o)


def two_sums_of_one_product(Wq, Wk, Wv, x):
    # p's cotangent is summed twice (two unbroadcasts of one product), then updated
    s = (x @ Wq) @ (x @ Wk).transpose(0, 2, 1)
    m = s.max(-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(s - m), axis=-1, keepdims=True))
    p = np.exp(s - lse)
    return np.sum((p @ (x @ Wv)) ** 2)


def test_batched_softmax_adjoints_stay_right():
    args = _point()
    for fn in (batched, two_sums_of_one_product):
        got = sg.grad(fn, wrt=(0, 1, 2))(*args)
        plain = sg.grad(fn, wrt=(0, 1, 2), optimize=False)(*args)
        for i, (g, u) in enumerate(zip(got, plain)):
            np.testing.assert_allclose(g, u, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(g, numeric_gradient(fn, args, {}, i), rtol=1e-6,
                                       atol=1e-8)
