"""Memory and time of ``sg.checkpoint`` on a long loop (API.md "Memory").

The gradient of ``sum(s ** 2)`` after ``STEPS`` steps ``s = step(s, W)`` on a ``rows x cols``
state (60 steps on 256 x 64 by default), with respect to ``W``, three ways:

- ``unmarked``: ``sg.grad`` of the loop calling ``step``: the reverse pass tapes what each
  step's adjoint reads (the state and the step's intermediates);
- ``checkpointed``: the same loop calling ``sg.checkpoint(step)``: only each step's
  argument is taped, the step is recomputed before its adjoint;
- ``hand-written``: the ideal pair written by hand: a forward loop keeping the states, a
  reverse loop that recomputes each step and applies its adjoint.

Peak memory is tracemalloc's peak over one gradient call (NumPy reports its buffers to
tracemalloc) minus what was allocated before it; time is the median of interleaved rounds.
Ratios are to ``unmarked`` measured in the same run. Goal (issue 15): checkpointed peak at
most 0.4x unmarked, time at most 1.5x. Every gradient is checked against the hand-written
one before anything is measured.

    python benchmarks/checkpoint.py [--steps 60] [--rows 256] [--cols 64] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import srcgrad as sg


def step(s, W):
    z = s @ W
    h = np.tanh(z)
    g = 1.0 / (1.0 + np.exp(-z))
    return s + 0.1 * h * g


checkpointed_step = sg.checkpoint(step)


def loss_unmarked(s, W, n):
    for _ in range(n):
        s = step(s, W)
    return np.sum(s ** 2)


def loss_checkpointed(s, W, n):
    for _ in range(n):
        s = checkpointed_step(s, W)
    return np.sum(s ** 2)


def hand_written_grad(s, W, n):
    """d loss / dW: keep only the states, recompute each step for its adjoint."""
    states = []
    for _ in range(n):
        states.append(s)
        s = step(s, W)
    ds = 2.0 * s
    dW = np.zeros_like(W)
    for s in reversed(states):
        z = s @ W
        h = np.tanh(z)
        g = 1.0 / (1.0 + np.exp(-z))
        dz = ds * (0.1 * (g * (1.0 - h * h) + h * g * (1.0 - g)))
        dW += s.T @ dz
        ds = ds + dz @ W.T
    return dW


def _systems(n: int) -> dict[str, Callable[[np.ndarray, np.ndarray], Any]]:
    unmarked = sg.grad(loss_unmarked, wrt=1)
    checkpointed = sg.grad(loss_checkpointed, wrt=1)
    return {"unmarked": lambda s, W: unmarked(s, W, n),
            "checkpointed": lambda s, W: checkpointed(s, W, n),
            "hand-written": lambda s, W: hand_written_grad(s, W, n)}


def peak_bytes(fn: Callable[[], Any]) -> int:
    """tracemalloc's peak during ``fn()`` above what was allocated when it started."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def measure(steps: int = 60, rows: int = 256, cols: int = 64,
            rounds: int = 7) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(0)
    s0 = rng.normal(size=(rows, cols))
    W = rng.normal(size=(cols, cols)) / np.sqrt(cols)
    systems = _systems(steps)
    want = systems["hand-written"](s0, W)
    for name, fn in systems.items():  # compiles the two derived functions, checks them
        np.testing.assert_allclose(fn(s0, W), want, rtol=1e-9, atol=1e-12, err_msg=name)
    peaks = {name: peak_bytes(lambda fn=fn: fn(s0, W)) for name, fn in systems.items()}
    times: dict[str, list[float]] = {name: [] for name in systems}
    names = list(systems)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:  # rotating order
            start = time.perf_counter()
            systems[name](s0, W)
            times[name].append(time.perf_counter() - start)
    result = {}
    for name in systems:
        seconds = statistics.median(times[name])
        result[name] = {"peak_mb": peaks[name] / 2**20, "ms": seconds * 1e3,
                        "memory_ratio": peaks[name] / peaks["unmarked"],
                        "time_ratio": seconds / statistics.median(times["unmarked"])}
    return result


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rows", type=int, default=256)
    parser.add_argument("--cols", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=7)
    a = parser.parse_args(argv)
    result = measure(a.steps, a.rows, a.cols, a.rounds)
    print(f"gradient of {a.steps} steps on {a.rows}x{a.cols} states, w.r.t. W "
          f"(ratios to unmarked, same run)")
    print(f"{'':14}{'peak MB':>10}{'memory':>9}{'ms':>10}{'time':>8}")
    for name, r in result.items():
        print(f"{name:14}{r['peak_mb']:10.2f}{r['memory_ratio']:8.2f}x{r['ms']:10.2f}"
              f"{r['time_ratio']:7.2f}x")
    return result


if __name__ == "__main__":
    main()
