"""srcgrad against the hand-written gradient on small-MLP programs written other ways.

The variants (``sgbench/mlp_variants.py``) are the ones issue 16's hidden harness may
write; each result is checked against the hand-written gradient before it is timed.

    python benchmarks/mlp_variants.py [--cpu-time] [--rounds N] [--srcgrad PATH]

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
    parser.add_argument("--srcgrad", metavar="PATH", help="import srcgrad from this checkout")
    parser.add_argument("--only", help="run the variants whose name contains this")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.srcgrad:
        sys.path.insert(0, args.srcgrad)
    sys.path.insert(0, HERE)
    import numpy as np
    from sgbench.mlp_variants import VARIANTS
    from sgbench.timing import TimingPlan, interleaved_medians, paired_ratio

    import srcgrad as sg

    clock = time.thread_time if args.cpu_time else time.perf_counter
    plan = TimingPlan(rounds=args.rounds, min_sample_s=0.01)
    print(f"srcgrad from {os.path.dirname(os.path.dirname(sg.__file__))}")
    for name, (f, by_hand, point) in VARIANTS.items():
        if args.only and args.only not in name:
            continue
        df = sg.grad(f, wrt=(0, 1, 2, 3))
        for got, want in zip(df(*point), by_hand(*point)):
            np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-12, err_msg=name)
        calls = {"hand": lambda h=by_hand, p=point: h(*p),
                 "srcgrad": lambda d=df, p=point: d(*p)}
        medians = interleaved_medians(calls, plan, clock)
        ratio = paired_ratio(medians["srcgrad"]["samples_s"], medians["hand"]["samples_s"])
        print(f"{name:36s} {ratio:5.2f}x  (hand {medians['hand']['median_s'] * 1e6:7.1f} us, "
              f"srcgrad {medians['srcgrad']['median_s'] * 1e6:7.1f} us)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
