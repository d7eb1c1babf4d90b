"""Runtime overhead (W5): a 100-op dynamic graph on size-4 float32 tensors, built and
backpropagated per call, timed side by side against a hand-written NumPy gradient, the
smallest dynamic tape one would write by hand (:class:`TapeValue`, about 40 lines of
NumPy: what any define-by-run runtime must at least do) and (when installed) torch eager.

The graph: 25 x (mul, add, sin, scale), then sum. Runs alternate between the
implementations (interleaved rounds) and the medians are reported, so machine noise hits
all of them alike. Run: ``python benchmarks/runtime_overhead.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import srcgrad as sg

STEPS = 25  # x (mul, add, sin, scale) -> 100 ops, then sum


def graph_step(make_tensor: Callable[..., Any], x0: np.ndarray, w0: np.ndarray,
               b0: np.ndarray) -> Callable[[], object]:
    """The dynamic graph, built and backpropagated per call, in srcgrad or torch alike."""
    x, w, b = (make_tensor(a, requires_grad=True) for a in (x0, w0, b0))

    def run() -> object:
        x.grad = w.grad = b.grad = None
        h = x
        for _ in range(STEPS):
            h = ((h * w + b).sin()) * 0.5
        h.sum().backward()
        return x.grad

    return run


def srcgrad_step(x0: np.ndarray, w0: np.ndarray, b0: np.ndarray) -> Callable[[], object]:
    return graph_step(sg.tensor, x0, w0, b0)


def numpy_step(x0: np.ndarray, w0: np.ndarray, b0: np.ndarray) -> Callable[[], object]:
    """The same gradient, written by hand: forward keeping what backward needs."""

    def run() -> object:
        h = x0
        saved = []
        for _ in range(STEPS):
            u = h * w0 + b0
            saved.append((h, u))
            h = np.sin(u) * 0.5
        g = np.ones_like(h)
        gw = np.zeros_like(w0)
        gb = np.zeros_like(b0)
        for h_in, u in reversed(saved):
            gu = g * 0.5 * np.cos(u)
            gw += gu * h_in
            gb += gu
            g = gu * w0
        return g, gw, gb

    return run


class TapeValue:
    """A hand-written NumPy tape: a value, its parents with their local VJPs, a
    topological sort and a reverse walk (micrograd's shape on arrays). No dtype rules,
    no version counters, hooks or grad mode: the floor a dynamic runtime is measured by."""

    __slots__ = ("data", "grad", "parents")

    def __init__(self, data: np.ndarray, parents: tuple[Any, ...] = ()) -> None:
        self.data = data
        self.grad: Any = None
        self.parents = parents  # ((parent, vjp), ...)

    def __mul__(self, other: Any) -> TapeValue:
        if isinstance(other, TapeValue):
            a, b = self.data, other.data
            return TapeValue(a * b, ((self, lambda g: g * b), (other, lambda g: g * a)))
        return TapeValue(self.data * other, ((self, lambda g: g * other),))

    def __add__(self, other: TapeValue) -> TapeValue:
        return TapeValue(self.data + other.data, ((self, lambda g: g), (other, lambda g: g)))

    def sin(self) -> TapeValue:
        x = self.data
        return TapeValue(np.sin(x), ((self, lambda g: g * np.cos(x)),))

    def sum(self) -> TapeValue:
        shape = self.data.shape
        return TapeValue(self.data.sum(), ((self, lambda g: np.broadcast_to(g, shape)),))

    def backward(self) -> None:
        order, seen, stack = [], set(), [(self, False)]
        while stack:  # iterative post-order: parents before children
            v, done = stack.pop()
            if done:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v))
                stack.append((v, True))
                stack.extend((p, False) for p, _ in v.parents)
        self.grad = np.ones_like(self.data)
        for v in reversed(order):
            for p, vjp in v.parents:
                g = vjp(v.grad)
                p.grad = g if p.grad is None else p.grad + g


def tape_step(x0: np.ndarray, w0: np.ndarray, b0: np.ndarray) -> Callable[[], object]:
    def make(a: np.ndarray, requires_grad: bool) -> TapeValue:
        return TapeValue(a)

    return graph_step(make, x0, w0, b0)


def torch_step(x0: np.ndarray, w0: np.ndarray, b0: np.ndarray) -> Callable[[], object] | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return graph_step(torch.tensor, x0, w0, b0)


def time_call(fn: Callable[[], object], repeat: int,
              clock: Callable[[], float] = time.perf_counter) -> float:
    start = clock()
    for _ in range(repeat):
        fn()
    return (clock() - start) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: this process's CPU time (time.process_time), steadier "
                             "than wall time on a machine shared with other work")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    rng = np.random.default_rng(0)
    x0, w0, b0 = (rng.standard_normal(4).astype(np.float32) for _ in range(3))
    contenders = {"srcgrad": srcgrad_step(x0, w0, b0), "numpy (by hand)": numpy_step(x0, w0, b0),
                  "numpy tape": tape_step(x0, w0, b0)}
    torch_run = torch_step(x0, w0, b0)
    if torch_run is not None:
        contenders["torch eager"] = torch_run
    gx = contenders["srcgrad"]()
    np.testing.assert_allclose(gx._data, contenders["numpy (by hand)"]()[0], rtol=1e-4,
                               atol=1e-6)
    np.testing.assert_allclose(gx._data, contenders["numpy tape"](), rtol=1e-4,
                               atol=1e-6)
    for fn in contenders.values():  # warm up
        time_call(fn, args.repeat, clock)
    samples: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(args.rounds):
        for name, fn in contenders.items():
            samples[name].append(time_call(fn, args.repeat, clock))
    medians = {k: statistics.median(v) for k, v in samples.items()}
    # Each round times every contender back to back, so the ratio within a round is what
    # machine load disturbs least; report the median of those ratios.
    ratios = {k: statistics.median(a / b for a, b in zip(samples["srcgrad"], v))
              for k, v in samples.items()}
    ops = 4 * STEPS + 1
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"graph: {ops} ops on float32[4], built and backpropagated per call; medians of "
          f"{args.rounds} interleaved rounds x {args.repeat} calls, {args.clock} clock")
    for name, us in medians.items():
        print(f"  {name:16s} {us:9.1f} us/call  {us / ops:6.2f} us/op  "
              f"srcgrad/this (median of per-round ratios) = {ratios[name]:5.2f}")


if __name__ == "__main__":
    main()
