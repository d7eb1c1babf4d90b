"""srcgrad against the hand-written gradient on W2/W3-like array programs written other ways.

The versions (``sgbench/array_variants.py``) are the ones issue 16's hidden harness may
write: small elementwise chains (goal <= 1.10x) and MLP losses (goal <= 1.05x). srcgrad's
gradient is checked against the hand-written one first (dtype, and values at rtol 1e-8, or
1e-4 in float32), then both are timed side by side. The hand-written gradients are checked
against finite differences by ``tests/benchmarks/test_array_variants_benchmark.py``.

    python benchmarks/array_variants.py [--cpu-time] [--rounds N] [--only a,b] [--srcgrad PATH]

``--srcgrad PATH`` imports srcgrad from another checkout (to compare with main: run both
alternately). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-time", action="store_true", help="CPU time of this thread")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-sample-ms", type=float, default=10.0)
    parser.add_argument("--srcgrad", metavar="PATH", help="import srcgrad from this checkout")
    parser.add_argument("--only", default="", help="comma-separated names (substrings)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.srcgrad:
        sys.path.insert(0, args.srcgrad)
    sys.path.insert(0, HERE)
    import numpy as np
    from sgbench.array_variants import GOALS, variants
    from sgbench.timing import TimingPlan, interleaved_medians, paired_ratio

    import srcgrad as sg

    clock = time.thread_time if args.cpu_time else time.perf_counter
    plan = TimingPlan(rounds=args.rounds, min_sample_s=args.min_sample_ms / 1e3)
    wanted = [w for w in args.only.split(",") if w]
    print(f"srcgrad from {os.path.dirname(os.path.dirname(sg.__file__))}")
    print(f"{'version':32s} {'srcgrad/hand':>12s} {'goal':>6s} {'hand us':>9s}")
    failures = 0
    for name, group, fn, by_hand, point, wrt in variants():
        if wanted and not any(w in name for w in wanted):
            continue
        df = sg.grad(fn, wrt=wrt)
        got, want = df(*point), by_hand(*point)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        rtol = 1e-4 if point[0].dtype == np.float32 else 1e-8
        try:
            for g, w in zip(got, want, strict=True):
                assert g.dtype == w.dtype, f"dtype {g.dtype}, hand-written {w.dtype}"
                scale = float(np.max(np.abs(w)))
                np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale)
        except AssertionError as problem:
            print(f"{name:32s} WRONG: {str(problem).strip().splitlines()[0]}")
            failures += 1
            continue
        calls = {"hand": lambda h=by_hand, p=point: h(*p),
                 "srcgrad": lambda d=df, p=point: d(*p)}
        medians = interleaved_medians(calls, plan, clock)
        ratio = paired_ratio(medians["srcgrad"]["samples_s"], medians["hand"]["samples_s"])
        goal = GOALS[group]
        flag = "" if ratio <= goal else "  over goal"
        print(f"{name:32s} {ratio:11.2f}x {goal:5.2f}x "
              f"{medians['hand']['median_s'] * 1e6:9.1f}{flag}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
