"""srcgrad's gradient of other scalar loops (W1-like, W4-like) against hand-written tangents.

    python benchmarks/scalar_variants.py [--cpu-time] [--rounds N] [--only NAME,...]

Each version of :mod:`sgbench.scalar_variants` is checked against its hand-written
forward tangent, then both are timed in interleaved rounds; the ratio is the median of the
per-round ratios (issue 16's goal for W1/W4 is <= 1.15x). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-time", action="store_true", help="time by this thread's CPU time")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-sample-ms", type=float, default=5.0)
    parser.add_argument("--only", default="", help="comma-separated names (substrings)")
    args = parser.parse_args(argv)

    from sgbench.scalar_variants import variants
    from sgbench.timing import TimingPlan, interleaved_medians, paired_ratio

    import srcgrad as sg

    clock = time.thread_time if args.cpu_time else time.perf_counter
    plan = TimingPlan(rounds=args.rounds, min_sample_s=args.min_sample_ms / 1e3)
    wanted = [w for w in args.only.split(",") if w]
    print(f"{'version':22s} {'srcgrad/hand':>12s} {'hand us':>9s}")
    worst = 0.0
    for name, fn, tangent, call_args in variants():
        if wanted and not any(w in name for w in wanted):
            continue
        g = sg.grad(fn)
        got, want = g(*call_args), tangent(*call_args)
        if not math.isclose(float(got), float(want), rel_tol=1e-8, abs_tol=1e-12):
            print(f"{name:22s} WRONG: srcgrad {got!r}, hand-written {want!r}")
            continue
        calls = {"srcgrad": (lambda g=g, a=call_args: g(*a)),
                 "hand": (lambda t=tangent, a=call_args: t(*a))}
        medians = interleaved_medians(calls, plan, clock)
        ratio = paired_ratio(medians["srcgrad"]["samples_s"], medians["hand"]["samples_s"])
        worst = max(worst, ratio)
        print(f"{name:22s} {ratio:11.2f}x {medians['hand']['median_s'] * 1e6:9.1f}")
    print(f"worst {worst:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
