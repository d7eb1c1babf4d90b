"""Per-call cost of structured arguments: a dict of 4 parameters against the same 4
parameters passed flat, through ``sg.grad`` of the same small loss.

Flattening happens once per call in the derived function's generated guard (the dict's
type and keys, each leaf's kind, then one index per leaf), and the gradients are rebuilt
into a dict: this measures what that adds. Both versions run interleaved (alternating
rounds) and the medians are reported, so machine noise hits them alike. The leaves are
Python floats, so the derivative's own work is a few multiplications and what the boundary
adds is visible.

    python benchmarks/flattening.py [--rounds N] [--calls N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import srcgrad as sg


def loss_flat(w1, b1, w2, b2, x):
    h = w1 * x + b1
    return w2 * h * h + b2


def loss_dict(params, x):
    h = params["w1"] * x + params["b1"]
    return params["w2"] * h * h + params["b2"]


def make(rng: np.random.Generator) -> tuple[dict[str, Any], float]:
    params = {k: float(v) for k, v in zip(("w1", "b1", "w2", "b2"), rng.normal(size=4))}
    return params, float(rng.normal())


def per_call_us(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def measure(rounds: int = 15, calls: int = 2000) -> dict[str, float]:
    params, x = make(np.random.default_rng(0))
    flat = sg.grad(loss_flat, wrt=(0, 1, 2, 3))
    structured = sg.grad(loss_dict)
    args = (*params.values(), x)
    want, got = flat(*args), structured(params, x)  # compile both, check they agree
    for w, key in zip(want, params):
        np.testing.assert_allclose(got[key], w, rtol=1e-12, atol=1e-12)
    times: dict[str, list[float]] = {"flat": [], "dict": []}
    for _ in range(rounds):
        times["flat"].append(per_call_us(lambda: flat(*args), calls))
        times["dict"].append(per_call_us(lambda: structured(params, x), calls))
    flat_us, dict_us = statistics.median(times["flat"]), statistics.median(times["dict"])
    return {"flat_us": flat_us, "dict_us": dict_us, "overhead_us": dict_us - flat_us}


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    a = parser.parse_args(argv)
    r = measure(a.rounds, a.calls)
    print(f"sg.grad, 4 parameters flat:     {r['flat_us']:7.2f} us per call")
    print(f"sg.grad, 4 parameters in a dict: {r['dict_us']:7.2f} us per call")
    print(f"flattening and rebuilding add:   {r['overhead_us']:7.2f} us per call")
    return r


if __name__ == "__main__":
    main()
