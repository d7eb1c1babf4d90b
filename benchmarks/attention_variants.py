"""Attention written as people write it: srcgrad's gradient / the forward pass, per variant.

The ``attention`` row of ``benchmarks/programs.py`` is one spelling (einsum). This script
times the spellings of :mod:`sgbench.attention_variants` (``@`` with transposes, causal
masks, logsumexp, multi-head reshape) at several shapes: for each, srcgrad's gradient, the
hand-written gradient and the forward pass, interleaved, and reports both ratios to the
forward. Every srcgrad gradient is checked against the hand-written one first.

    python benchmarks/attention_variants.py [--cpu-time] [--quick] [--variants a,b]
                                            [--shapes 2x16x8,8x32x16] [--threads 1]

To compare two checkouts, run it once under each (``PYTHONPATH=...``), alternately.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-time", action="store_true", help="time by this thread's CPU time")
    parser.add_argument("--quick", action="store_true", help="5 short rounds instead of 15")
    parser.add_argument("--threads", type=int, default=1, help="numpy/BLAS threads (default 1)")
    parser.add_argument("--variants", help="comma-separated subset of the variants")
    parser.add_argument("--shapes", help="comma-separated BxTxE shapes")
    args = parser.parse_args(argv)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(args.threads)
    sys.path.insert(0, HERE)

    import numpy as np
    from sgbench import attention_variants as A
    from sgbench.timing import TimingPlan, interleaved_medians, paired_ratio

    import srcgrad as sg

    plan = TimingPlan.for_mode(args.quick)
    clock = time.thread_time if args.cpu_time else time.perf_counter
    names = args.variants.split(",") if args.variants else list(A.VARIANTS)
    shapes = ([tuple(int(n) for n in s.split("x")) for s in args.shapes.split(",")]
              if args.shapes else list(A.SHAPES))
    print(f"srcgrad from {os.path.dirname(sg.__file__)}")
    print(f"{'variant':<18} {'shape':<12} {'srcgrad/fwd':>11} {'hand/fwd':>9} {'fwd us':>9}")
    for name in names:
        f, hand = A.VARIANTS[name]
        df = sg.grad(f, wrt=(0, 1, 2))
        for shape in shapes:
            x = A.point(shape)
            got, want = df(*x), hand(*x)
            bad = [i for i, (g, w) in enumerate(zip(got, want))
                   if not np.allclose(g, w, rtol=1e-8, atol=1e-10)]
            if bad:
                print(f"{name:<18} {'x'.join(map(str, shape)):<12} WRONG (arguments {bad})")
                continue
            times = interleaved_medians({"forward": lambda f=f, x=x: f(*x),
                                         "srcgrad": lambda df=df, x=x: df(*x),
                                         "hand": lambda hand=hand, x=x: hand(*x)}, plan, clock)
            fwd = times["forward"]["samples_s"]
            print(f"{name:<18} {'x'.join(map(str, shape)):<12} "
                  f"{paired_ratio(times['srcgrad']['samples_s'], fwd):>10.2f}x "
                  f"{paired_ratio(times['hand']['samples_s'], fwd):>8.2f}x "
                  f"{times['forward']['median_s'] * 1e6:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
