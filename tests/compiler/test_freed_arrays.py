"""Arrays freed where they die (``backend/frees.py``): the emitted gradient deletes the name
of an array after the last statement reading it, so a big forward temporary (attention's
scores) is not held until the function returns. The peak memory of a call falls, and the
derivatives are unchanged in every mode."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg
from srcgrad.compiler.buffers import BufferPool

rng = np.random.default_rng(1617)


def attention_scores(Wq, x):
    q = x @ Wq
    s = q @ q.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    o = p @ q
    return np.sum(o * o)


def chain_with_rebound_names(x):
    y = np.sin(x) * x
    y = y * y + np.cos(y)  # (the reused name ``y``: the old array dies here)
    z = np.exp(-y) * x
    return np.sum(z * y)


def transposed_then_read(x):
    # v2 = v1.T is written inside the statement reading it (``np.cos(v1.T)``): v1 lives on
    # until that statement, not only until the transpose's own position
    v1 = np.sin(x)
    v2 = v1.T
    acc = np.cos(v2) * 0.5
    return np.sum(acc * acc) + np.sum(np.stack([x, x * 2.0]) ** 2)


def _peak(fn, *args):
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _without_deletes(text: str, name: str):
    # (a loop tape kept between calls reads its pool, bound by srcgrad: buffers.py)
    namespace: dict = {"_tape_buffers": BufferPool(text.count("buffers.into("))}
    kept = "\n".join(line for line in text.splitlines() if not line.strip().startswith("del "))
    exec(compile(kept, "<kept>", "exec"), namespace)
    return namespace[name]


def test_dead_arrays_are_deleted_and_the_peak_memory_of_a_gradient_falls():
    Wq = rng.standard_normal((16, 16)) / 4
    x = rng.standard_normal((8, 96, 16))
    df = sg.grad(attention_scores, wrt=(0, 1))
    text = sg.source(df, Wq, x)
    assert "\n    del " in text, text
    held = _without_deletes(text, "grad_attention_scores")
    for a, b in zip(df(Wq, x), held(Wq, x)):
        np.testing.assert_array_equal(a, b)
    # the (8, 96, 96) scores are the big arrays: deleting the dead ones saves at least one
    assert _peak(df, Wq, x) + 8 * 96 * 96 * 8 <= _peak(held, Wq, x)


@pytest.mark.parametrize("f, args", [
    (attention_scores, (rng.standard_normal((3, 3)), rng.standard_normal((2, 4, 3)))),
    (chain_with_rebound_names, (rng.standard_normal(5),)),
    (transposed_then_read, (rng.standard_normal((3, 2)),)),
])
def test_gradients_with_freed_arrays_differentiate_in_every_mode(f, args):
    if len(args) == 1:
        check_all_modes(f, args[0])
    else:
        Wq, x = args
        check_all_modes(lambda w: f(w.reshape(3, 3), x), Wq.ravel())


# --- a loop's body frees its own dead arrays (frees.dying_in_body) ------------------------
def attention_per_sequence(Wq, Wv, x):
    total = 0.0
    for b in range(x.shape[0]):
        xb = x[b]
        q, v = xb @ Wq, xb @ Wv
        s = q @ q.T / np.sqrt(q.shape[-1])
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p = p / p.sum(axis=1, keepdims=True)
        o = p @ v
        total = total + np.sum(o * o)
    return total


def vector_steps(x, n):
    for _ in range(n):
        y = np.sin(x) * x
        x = x + 0.1 * (y * y)
    return np.sum(x)


def _loop_deletes(text: str) -> list[str]:
    """The ``del`` lines inside a loop body (indented deeper than the function's)."""
    return [line.strip() for line in text.splitlines() if line.startswith("        del ")]


def test_a_loop_body_frees_its_dead_matrices_and_the_peak_memory_falls():
    Wq, Wv = rng.standard_normal((16, 16)) / 4, rng.standard_normal((16, 16)) / 4
    x = rng.standard_normal((6, 160, 16))
    df = sg.grad(attention_per_sequence, wrt=(0, 1))
    text = sg.source(df, Wq, Wv, x)
    deleted = {name for line in _loop_deletes(text) for name in line[4:].split(", ")}
    # the forward's scores and the reverse loop's popped probabilities die in the body
    assert {"s", "p"} <= deleted, text
    # a popped row is a view of the argument ``x``: its name holds no memory of its own
    assert not any(name.startswith("xb") for name in deleted), text
    held = _without_deletes(text, "grad_attention_per_sequence")
    for a, b in zip(df(Wq, Wv, x), held(Wq, Wv, x)):
        np.testing.assert_array_equal(a, b)
    # one (160, 160) scores array (or more) is no longer held into the next iteration
    assert _peak(df, Wq, Wv, x) + 160 * 160 * 8 <= _peak(held, Wq, Wv, x)


def test_a_loop_over_vectors_writes_no_deletes():
    # (a del per iteration costs a statement and frees nothing worth it: small vectors)
    x = rng.standard_normal(4)
    text = sg.source(sg.grad(vector_steps), x, 5)
    assert _loop_deletes(text) == [], text


def test_a_gradient_freeing_in_its_loops_differentiates_in_every_mode():
    Wv = rng.standard_normal((3, 3)) / 2
    x = rng.standard_normal((2, 4, 3))
    check_all_modes(lambda w: attention_per_sequence(w.reshape(3, 3), Wv, x),
                    rng.standard_normal(9) / 2)
