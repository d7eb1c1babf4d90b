"""Issue 16's RK4 and Hessian rows on other versions of their programs.

    python benchmarks/variants.py --cpu-time [--rows ode,hessian] [--match lorenz] [--json F]

ODE integrators (``sgbench/ode_variants.py``): srcgrad's gradient / the forward pass
(goal <= 4x), the gradient first checked against ``sg.jvp`` along a random direction (an
independent derivative: forward mode). Hessians (``sgbench/hessian_variants.py``):
``sg.hessian`` / the hand-written Hessian (a Python loop as the function loops, or the
vectorised one for a vectorised function; goal <= 15x), checked against it first. To
compare two checkouts, run this script under each (``PYTHONPATH=checkout``) alternately.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from sgbench import hessian_variants, ode_variants  # noqa: E402
from sgbench.timing import TimingPlan, interleaved_medians, paired_ratio  # noqa: E402


def _ratio(calls: dict[str, Any], plan: TimingPlan, clock: Any) -> tuple[float, float, float]:
    medians = interleaved_medians(calls, plan, clock=clock)
    return (paired_ratio(medians["srcgrad"]["samples_s"], medians["reference"]["samples_s"]),
            medians["srcgrad"]["median_s"], medians["reference"]["median_s"])


def ode_rows(match: str, plan: TimingPlan, clock: Any) -> list[dict[str, Any]]:
    import srcgrad as sg

    rows = []
    for label, f, args in ode_variants.variants():
        if match not in label:
            continue
        df, fw = sg.grad(f), sg.jvp(f)
        g = df(*args)
        v = np.random.default_rng(0).standard_normal(np.shape(args[0]))
        _, directional = fw(*args, v)
        if not np.allclose(np.sum(g * v), directional, rtol=1e-7, atol=1e-9):
            rows.append({"label": label, "status": "wrong"})
            continue
        ratio, s, r = _ratio({"srcgrad": lambda df=df, a=args: df(*a),
                              "reference": lambda f=f, a=args: f(*a)},
                             plan, clock)
        rows.append({"label": label, "ratio": ratio, "srcgrad_s": s, "reference_s": r,
                     "goal": 4.0})
    return rows


def hessian_rows(match: str, plan: TimingPlan, clock: Any) -> list[dict[str, Any]]:
    import srcgrad as sg

    rows = []
    for label, f, hand, args in hessian_variants.variants():
        if match not in label:
            continue
        H = sg.hessian(f)
        if not np.allclose(H(*args), hand(*args), rtol=1e-8, atol=1e-10):
            rows.append({"label": label, "status": "wrong"})
            continue
        ratio, s, r = _ratio({"srcgrad": lambda H=H, a=args: H(*a),
                              "reference": lambda h=hand, a=args: h(*a)},
                             plan, clock)
        rows.append({"label": label, "ratio": ratio, "srcgrad_s": s, "reference_s": r,
                     "goal": 15.0})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="ode,hessian")
    parser.add_argument("--match", default="", help="only variants whose label has this")
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-sample-ms", type=float, default=5.0)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    plan = TimingPlan(rounds=args.rounds, min_sample_s=args.min_sample_ms / 1e3)
    clock = time.thread_time if args.cpu_time else time.perf_counter
    rows: list[dict[str, Any]] = []
    if "ode" in args.rows:
        rows += ode_rows(args.match, plan, clock)
    if "hessian" in args.rows:
        rows += hessian_rows(args.match, plan, clock)
    for row in rows:
        if "ratio" not in row:
            print(f"{row['label']:45s} {row['status']}")
            continue
        flag = "OVER" if row["ratio"] > row["goal"] else \
            ("near" if row["ratio"] > 0.8 * row["goal"] else "")
        print(f"{row['label']:45s} {row['ratio']:7.2f}x  (srcgrad {row['srcgrad_s'] * 1e6:9.1f}"
              f" us, reference {row['reference_s'] * 1e6:9.1f} us) goal {row['goal']:g}x {flag}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
