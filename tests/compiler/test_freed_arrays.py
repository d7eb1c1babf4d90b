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
    namespace: dict = {}
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
