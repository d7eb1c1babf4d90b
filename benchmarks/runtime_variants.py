"""The runtime row (W5) on other graphs: srcgrad Tensor graph / NumPy gradient by hand.

W5 (``runtime_overhead.graph_step``) is one graph: 25 x ``((h * w + b).sin()) * 0.5`` on
float32[4], then ``sum().backward()``. Issue 16's hidden harness builds its own: other
elementwise ops, float64, sizes 4..1000, 50-200 ops, a small matmul layer, a mean in the
middle, Python floats on either side of an operator, two graphs sharing leaves. Each
version here is such a graph, built and backpropagated per call, beside the same gradient
written by hand in NumPy (a forward loop keeping what the backward reads, then a reverse
loop), and beside the 40-line tape (``sgbench/tape.py``) where its few operations suffice.
Every srcgrad gradient is checked against the hand-written one first.

    python benchmarks/runtime_variants.py [--cpu-time] [--rounds N] [--repeat K] [--only NAME,...]

Each round takes ``K`` interleaved samples of every call and keeps each one's best (on a
shared machine a sample is slowed by others' load, never sped up); a row's ratio is the
median over the rounds of the ratio of those bests.

To compare two checkouts, run it under each (``PYTHONPATH=checkout``) alternately. Not
part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

Arrays = tuple[np.ndarray, ...]


# --- elementwise chains: h = act(h * w + b) * c, `steps` times, then sum -----------------

def _act_grads(act: str) -> tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]:
    """The activation in NumPy and its derivative from (u, act(u)), as a person writes them."""
    if act == "sin":
        return np.sin, lambda u, a: np.cos(u)
    if act == "tanh":
        return np.tanh, lambda u, a: 1.0 - a * a
    if act == "sigmoid":
        return (lambda u: 1.0 / (1.0 + np.exp(-u))), lambda u, a: a * (1.0 - a)
    if act == "relu":
        return (lambda u: np.maximum(u, 0.0)), lambda u, a: u > 0
    if act == "exp":
        return np.exp, lambda u, a: a
    raise ValueError(act)


def chain(act: str, steps: int, c: float) -> tuple[Callable[..., Any], Callable[..., Arrays]]:
    """``h = act(h * w + b) * c``: the graph (any Tensor-like class) and its gradient by hand."""
    fwd, slope = _act_grads(act)

    def graph(x: Any, w: Any, b: Any) -> Any:
        h = x
        for _ in range(steps):
            h = getattr(h * w + b, act)() * c
        return h.sum()

    def by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Arrays:
        h, saved = x, []
        for _ in range(steps):
            u = h * w + b
            a = fwd(u)
            saved.append((h, u, a))
            h = a * c
        g = np.ones_like(h)
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for h_in, u, a in reversed(saved):
            gu = g * c * slope(u, a)
            gw += gu * h_in
            gb += gu
            g = gu * w
        return g, gw, gb

    return graph, by_hand


def scalars_both_sides(steps: int) -> tuple[Callable[..., Any], Callable[..., Arrays]]:
    """Python floats left and right of operators: ``h = 1.0 - (0.5 * tanh(h*w - b)) / 2.0``."""

    def graph(x: Any, w: Any, b: Any) -> Any:
        h = x
        for _ in range(steps):
            h = 1.0 - (0.5 * (h * w - b).tanh()) / 2.0
        return h.sum()

    def by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Arrays:
        h, saved = x, []
        for _ in range(steps):
            t = np.tanh(h * w - b)
            saved.append((h, t))
            h = 1.0 - (0.5 * t) / 2.0
        g = np.ones_like(h)
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for h_in, t in reversed(saved):
            gu = g * -0.25 * (1.0 - t * t)
            gw += gu * h_in
            gb -= gu
            g = gu * w
        return g, gw, gb

    return graph, by_hand


def power_div(steps: int) -> tuple[Callable[..., Any], Callable[..., Arrays]]:
    """``h = sin(h*w + b) ** 2.0 / (1.0 + b * b)``: pow by a float, division by a tensor."""

    def graph(x: Any, w: Any, b: Any) -> Any:
        h = x
        for _ in range(steps):
            h = (h * w + b).sin() ** 2.0 / (1.0 + b * b)
        return h.sum()

    def by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Arrays:
        h, saved = x, []
        for _ in range(steps):
            u = h * w + b
            s = np.sin(u)
            d = 1.0 + b * b
            saved.append((h, u, s, d))
            h = s * s / d
        g = np.ones_like(h)
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for h_in, u, s, d in reversed(saved):
            gd = -g * s * s / (d * d)
            gu = g / d * 2.0 * s * np.cos(u)
            gw += gu * h_in
            gb += gu + gd * 2.0 * b
            g = gu * w
        return g, gw, gb

    return graph, by_hand


def mean_inside(steps: int) -> tuple[Callable[..., Any], Callable[..., Arrays]]:
    """A mean in the middle of every step: ``t = sin(h*w + b); h = t - t.mean()``."""

    def graph(x: Any, w: Any, b: Any) -> Any:
        h = x
        for _ in range(steps):
            t = (h * w + b).sin()
            h = t - t.mean()
        return h.sum() + (h * h).sum()

    def by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Arrays:
        h, saved = x, []
        for _ in range(steps):
            u = h * w + b
            t = np.sin(u)
            saved.append((h, u))
            h = t - t.mean()
        g = 1.0 + 2.0 * h
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for h_in, u in reversed(saved):
            gu = (g - g.mean()) * np.cos(u)
            gw += gu * h_in
            gb += gu
            g = gu * w
        return g, gw, gb

    return graph, by_hand


def dense(steps: int) -> tuple[Callable[..., Any], Callable[..., Arrays]]:
    """A small recurrent layer: ``h = tanh(h @ W + b)``, W shared by every step."""

    def graph(x: Any, w: Any, b: Any) -> Any:
        h = x
        for _ in range(steps):
            h = (h @ w + b).tanh()
        return h.sum()

    def by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Arrays:
        h, saved = x, []
        for _ in range(steps):
            t = np.tanh(h @ w + b)
            saved.append((h, t))
            h = t
        g = np.ones_like(h)
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for h_in, t in reversed(saved):
            gu = g * (1.0 - t * t)
            gw += np.outer(h_in, gu) if h_in.ndim == 1 else h_in.T @ gu
            gb += gu if gu.ndim == 1 else gu.sum(axis=0)
            g = gu @ w.T
        return g, gw, gb

    return graph, by_hand


def shared_leaves(steps: int) -> tuple[Callable[..., Any], Callable[..., Arrays]]:
    """Two graphs on the same leaves, each backpropagated (the leaves' .grad accumulate)."""
    g1, h1 = chain("sin", steps, 0.5)
    g2, h2 = chain("tanh", steps, 0.9)

    def graph(x: Any, w: Any, b: Any) -> Any:
        g1(x, w, b).backward()
        return g2(x, w, b)

    def by_hand(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> Arrays:
        return tuple(p + q for p, q in zip(h1(x, w, b), h2(x, w, b)))  # type: ignore[return-value]

    return graph, by_hand


# name: (graph and hand gradient, dtype, shapes of x, w, b)
def variants() -> dict[str, tuple[tuple[Callable[..., Any], Callable[..., Arrays]], Any,
                                  tuple[tuple[int, ...], ...]]]:
    f32, f64 = np.float32, np.float64
    vec = {n: ((n,), (n,), (n,)) for n in (4, 100, 1000)}
    return {
        "W5 sin f32[4] 100 ops": (chain("sin", 25, 0.5), f32, vec[4]),
        "sin f64[4] 100 ops": (chain("sin", 25, 0.5), f64, vec[4]),
        "sin f64[100] 200 ops": (chain("sin", 50, 0.5), f64, vec[100]),
        "sin f32[1000] 100 ops": (chain("sin", 25, 0.5), f32, vec[1000]),
        "tanh f32[4] 100 ops": (chain("tanh", 25, 0.9), f32, vec[4]),
        "sigmoid f64[4] 100 ops": (chain("sigmoid", 25, 1.5), f64, vec[4]),
        "relu f32[4] 100 ops": (chain("relu", 25, 0.9), f32, vec[4]),
        "exp f64[100] 48 ops": (chain("exp", 12, 0.1), f64, vec[100]),
        "floats both sides f32[4] 150 ops": (scalars_both_sides(25), f32, vec[4]),
        "pow, div f64[4] 150 ops": (power_div(25), f64, vec[4]),
        "mean inside f32[4] 125 ops": (mean_inside(25), f32, vec[4]),
        "matmul 4x4 f32 75 ops": (dense(25), f32, ((4,), (4, 4), (4,))),
        "matmul 32x32 f64 75 ops": (dense(25), f64, ((32,), (32, 32), (32,))),
        "matmul batch 8x16 f32 75 ops": (dense(25), f32, ((8, 16), (16, 16), (16,))),
        "two graphs, shared leaves f32[4]": (shared_leaves(12), f32, vec[4]),
    }


def _runner(graph: Callable[..., Any], make: Callable[..., Any],
            arrays: Arrays) -> Callable[[], Any]:
    """Build the graph on fresh leaves' grads and backpropagate, per call."""
    leaves = [make(a, requires_grad=True) for a in arrays]

    def run() -> Any:
        for t in leaves:
            t.grad = None
        graph(*leaves).backward()
        return leaves

    return run


def _best_per_round(medians: dict[str, dict[str, Any]], repeat: int) -> dict[str, dict[str, Any]]:
    """Each call's samples grouped by ``repeat`` consecutive interleaved rounds, the best
    of each group kept as that round's sample; ``median_s`` is their median."""
    import statistics

    found = {}
    for name, m in medians.items():
        samples = m["samples_s"]
        best = [min(samples[i:i + repeat]) for i in range(0, len(samples), repeat)]
        found[name] = {**m, "samples_s": best, "median_s": statistics.median(best)}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-time", action="store_true", help="time by this thread's CPU time")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3,
                        help="interleaved samples per round, the best of which counts")
    parser.add_argument("--min-sample-ms", type=float, default=10.0)
    parser.add_argument("--only", default="", help="comma-separated names (substrings)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from sgbench.tape import Var
    from sgbench.timing import TimingPlan, interleaved_medians, paired_ratio

    import srcgrad as sg

    clock = time.thread_time if args.cpu_time else time.perf_counter
    repeat = max(1, args.repeat)
    plan = TimingPlan(rounds=args.rounds * repeat, min_sample_s=args.min_sample_ms / 1000)
    print(f"srcgrad from {os.path.dirname(os.path.dirname(sg.__file__))}; ratios: median of "
          f"per-round ratios, {args.rounds} rounds of the best of {repeat} interleaved samples")
    only = [s for s in args.only.split(",") if s]
    worst = 0.0
    for name, ((graph, by_hand), dtype, shapes) in variants().items():
        if only and not any(s in name for s in only):
            continue
        rng = np.random.default_rng(0)
        arrays = tuple((0.5 * rng.standard_normal(s)).astype(dtype) for s in shapes)
        tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-12)
        want = by_hand(*arrays)
        calls = {"hand": lambda h=by_hand, a=arrays: h(*a),
                 "srcgrad": _runner(graph, sg.tensor, arrays)}
        for got, ref in zip(calls["srcgrad"](), want):
            np.testing.assert_allclose(got.grad.numpy(), ref, err_msg=name, **tol)
        try:  # the tape knows *, +, sin and sum only
            tape = _runner(graph, Var, arrays)
            for got, ref in zip(tape(), want):
                np.testing.assert_allclose(got.grad, ref, err_msg=name, **tol)
            calls["tape"] = tape
        except (AttributeError, TypeError):
            pass
        medians = _best_per_round(interleaved_medians(calls, plan, clock), repeat)
        ratio = paired_ratio(medians["srcgrad"]["samples_s"], medians["hand"]["samples_s"])
        worst = max(worst, ratio)
        extra = ""
        if "tape" in calls:
            tape_ratio = paired_ratio(medians["tape"]["samples_s"], medians["hand"]["samples_s"])
            extra = f", tape {medians['tape']['median_s'] * 1e6:7.1f} us = {tape_ratio:.2f}x"
        print(f"{name:34s} {ratio:5.2f}x  (hand {medians['hand']['median_s'] * 1e6:7.1f} us, "
              f"srcgrad {medians['srcgrad']['median_s'] * 1e6:7.1f} us{extra})", flush=True)
    print(f"worst: {worst:.2f}x (goal <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
