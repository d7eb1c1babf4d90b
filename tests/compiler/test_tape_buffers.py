"""Buffers kept between calls for the arrays a loop tapes (``compiler/buffers.py``, chosen by
``passes/tape_buffers.py``): the emitted gradient writes them with ``out=`` into the
buffers its last call kept, so a tape of megabytes is not page-faulted in again per call.
The values are the plain code's bit for bit, at every shape and dtype a version meets; a
result is never a buffer a later call writes; concurrent calls never share one."""

from __future__ import annotations

import threading
import types

import numpy as np
import pytest

import srcgrad as sg
import srcgrad.compiler.backend.buffered as buffered
import srcgrad.compiler.buffers as buffers_module
from srcgrad.compiler.buffers import MIN_BYTES, SKIP, BufferPool, Buffers


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


def carried_state(W, x):
    """The loop's matrix is also its carried state: never written into a kept buffer."""
    h = np.zeros((x.shape[1], W.shape[1]))
    for t in range(x.shape[0]):
        h = np.tanh(x[t] @ W + h)
    return np.sum(h * h)


def _copy(f):
    return types.FunctionType(f.__code__, f.__globals__, f.__name__)  # (its own cache)


def _pair(f, monkeypatch, **kw):
    """The gradient with kept buffers, and the same optimised code without them."""
    with_buffers = sg.grad(f, **kw)
    with monkeypatch.context() as m:
        m.setattr(buffered, "buffered_ops", lambda fn: {})
        plain = sg.grad(_copy(f), **kw)
        return with_buffers, plain


def _point(batch, length, width, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    w = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(dtype) for _ in range(3)]
    return (*w, rng.standard_normal((batch, length, width)).astype(dtype))


def _equal(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g, w)


def test_a_loops_taped_matrices_are_written_into_kept_buffers():
    df = sg.grad(per_sequence, wrt=(0, 1, 2))
    text = sg.source(df, *_point(2, 8, 4))
    assert "buffers = _tape_buffers.take()" in text
    assert "q = xb @ Wq if buffers is None else buffers.into(0, np.matmul, xb, Wq)" in text
    assert "buffers.into(3, np.divide, p, " in text
    lines = text.rstrip().splitlines()
    assert lines[-2].strip() == "_tape_buffers.give(buffers)"
    assert lines[-1].strip().startswith("return ")
    plain = sg.source(sg.grad(_copy(per_sequence), wrt=(0, 1, 2), optimize=False),
                      *_point(2, 8, 4))
    assert "buffers" not in plain  # a literal print of the IR keeps its plain expressions


def test_a_carried_matrix_is_never_written_into_a_kept_buffer(monkeypatch):
    df, plain = _pair(carried_state, monkeypatch, wrt=(0, 1))
    rng = np.random.default_rng(3)
    W, x = rng.standard_normal((64, 64)) * 0.1, rng.standard_normal((5, 128, 64))
    assert "into" not in sg.source(df, W, x)
    _equal(df(W, x), plain(W, x))


@pytest.mark.parametrize("shapes", [
    [(3, 128, 64), (3, 128, 64), (2, 96, 64), (4, 128, 64), (3, 128, 64)],
    [(2, 96, 48), (3, 128, 64), (2, 8, 4), (3, 128, 64), (1, 128, 64)],
])
def test_values_are_the_plain_codes_bit_for_bit_as_shapes_change(monkeypatch, shapes):
    df, plain = _pair(per_sequence, monkeypatch, wrt=(0, 1, 2))
    for k, shape in enumerate(shapes):
        x = _point(*shape, seed=k)
        _equal(df(*x), plain(*x))


def test_float32_keeps_its_dtype_and_values(monkeypatch):
    df, plain = _pair(per_sequence, monkeypatch, wrt=(0, 1, 2))
    for shape in [(3, 256, 64), (3, 256, 64), (2, 200, 64)]:
        x = _point(*shape, dtype=np.float32)
        got = df(*x)
        assert all(g.dtype == np.float32 for g in got)
        _equal(got, plain(*x))
    x = _point(3, 256, 64)  # float64 again: another version, its own buffers
    _equal(df(*x), plain(*x))


def test_a_result_is_never_written_by_a_later_call():
    df = sg.grad(per_sequence, wrt=(0, 1, 2))
    first = df(*_point(3, 128, 64, seed=1))
    kept = [g.copy() for g in first]
    for seed in range(2, 5):
        df(*_point(3, 128, 64, seed=seed))
    _equal(first, kept)


def test_concurrent_calls_get_their_own_buffers():
    df = sg.grad(per_sequence, wrt=(0, 1, 2))
    points = [_point(2, 128, 64, seed=s) for s in range(4)]
    want = [df(*p) for p in points]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(6):
                _equal(df(*points[k]), want[k])
        except BaseException as problem:  # (reported by the main thread)
            errors.append(problem)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_a_call_that_raises_leaves_the_next_calls_right(monkeypatch):
    df, plain = _pair(per_sequence, monkeypatch, wrt=(0, 1, 2))
    x = _point(3, 128, 64)
    want = plain(*x)
    df(*x)
    bad = (*x[:3], np.ones((3, 128, 65)))  # matmul of mismatched widths: NumPy's error
    with pytest.raises(ValueError):
        df(*bad)
    _equal(df(*x), want)


# --- the run-time half ------------------------------------------------------------------

def test_into_writes_the_kept_buffer_only_when_shape_dtype_and_layout_fit():
    b = Buffers(1)
    a = np.random.default_rng(0).standard_normal((128, 64))
    first = b.into(0, np.exp, a)
    assert len(b.kept[0]) == 1 and b.kept[0][0] is first and first.nbytes >= 2 * MIN_BYTES
    b.used = [0]
    assert b.into(0, np.exp, a) is first  # written in place
    b.used = [0]
    f32 = b.into(0, np.exp, a.astype(np.float32))  # a cast: computed afresh, kept instead
    assert f32.dtype == np.float32 and f32 is not first and b.kept[0][0] is f32
    b.used = [0]
    a32 = a.astype(np.float32)
    wider = b.into(0, np.add, a[:1], a32)  # float64: not into the float32 buffer
    assert wider.dtype == np.float64 and np.array_equal(wider, a[:1] + a32)
    b.used = [0]
    t = b.into(0, np.exp, a.T)  # a transposed operand: the plain call's order
    assert np.array_equal(t, np.exp(a.T)) and t.strides == np.exp(a.T).strides
    b.used = [0]
    grown = b.into(0, np.add, a[:1], np.ones((3, 128, 64)))  # broadcast past the buffer
    assert grown.shape == (3, 128, 64)


def test_matmul_takes_a_buffer_of_exactly_its_result_shape():
    b = Buffers(1)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((4, 64, 32)), rng.standard_normal((32, 64))
    first = b.into(0, np.matmul, x, w)
    b.used = [0]
    assert b.into(0, np.matmul, x, w) is first
    b.used = [0]
    stacked = b.into(0, np.matmul, x[:1], w)  # a smaller stack: not the kept (4, 64, 64)
    assert stacked.shape == (1, 64, 64) and np.array_equal(stacked, x[:1] @ w)


def test_the_pool_hands_a_set_to_one_call_at_a_time_and_skips_small_arrays():
    pool = BufferPool(1)
    one, two = pool.take(), pool.take()
    assert one is not two  # (a recursive or concurrent call)
    one.into(0, np.exp, np.zeros((64, 64)))
    pool.give(one)
    assert pool.take() is one
    small = pool.take()
    small.into(0, np.exp, np.zeros(4))
    pool.give(small)
    assert [pool.take() for _ in range(SKIP)] == [None] * SKIP
    assert isinstance(pool.take(), Buffers)  # then it looks at the sizes again


def test_a_skip_count_taken_below_zero_by_racing_threads_counts_as_zero():
    pool = BufferPool(1)
    pool.skip = -1  # (two threads passed the test at 1, both decremented)
    assert isinstance(pool.take(), Buffers)


def test_a_set_of_buffers_larger_than_the_cap_is_not_kept(monkeypatch):
    pool = BufferPool(1)
    big = pool.take()
    big.into(0, np.exp, np.zeros((64, 64)))
    assert big.nbytes == 64 * 64 * 8
    monkeypatch.setattr(buffers_module, "MAX_BYTES", big.nbytes - 1)
    pool.give(big)
    assert pool.take() is not big
