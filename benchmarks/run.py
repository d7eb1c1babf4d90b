"""srcgrad against a hand-written gradient and its peers, side by side in one run.

Measures the gradients of W1 (scalar loop), W2 (small-array chain), W3 (MLP loss) and W4
(Newton ``while`` loop) with srcgrad, a hand-written gradient (the 1.0 baseline), HIPS
autograd, torch eager, jax (with and without ``jit``) and tangent-ad, whichever are
installed; srcgrad's first-call (compile) latency; the peak memory of W1's gradient over a
long loop; and the Hessian of a 50-parameter function with a loop. Every gradient is
checked against the hand-written one before it is timed. Writes a markdown table and JSON.

    python benchmarks/run.py [--quick] [--json PATH] [--md PATH] [--threads 1]
                             [--tangent-python PATH] [--systems srcgrad,torch,...]

A peer installed in another venv (tangent-ad, with its own pins) runs as a subprocess of
this script (``--worker``) that times the hand-written gradient beside it, so its ratio is
measured side by side in one process too. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TANGENT_PYTHON_CANDIDATES = (
    os.environ.get("SRCGRAD_TANGENT_PYTHON", ""),
    os.path.join(os.path.dirname(os.path.dirname(HERE)), "tangent-venv", "bin", "python"),
    os.path.join(os.path.expanduser("~"), "tangent-venv", "bin", "python"),
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer rounds, shorter samples, 100k-step memory run (< 1 min)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--md", metavar="PATH", help="write the markdown report")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for numpy/BLAS, torch and XLA (default 1)")
    parser.add_argument("--systems", default="",
                        help="comma-separated subset of srcgrad,autograd,torch,jax,jax_jit,"
                             "tangent (default: all installed)")
    parser.add_argument("--workloads", default="W1,W2,W3,W4", help="comma-separated subset")
    parser.add_argument("--rounds", type=int, help="override the number of timing rounds")
    parser.add_argument("--min-sample-ms", type=float,
                        help="override the minimum duration of one timing sample")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    parser.add_argument("--no-hessian", action="store_true", help="skip the Hessian workload")
    parser.add_argument("--tangent-python", metavar="PATH",
                        help="a Python with tangent-ad installed, run as a subprocess when "
                             "tangent is not importable here (default: auto-detect "
                             "$SRCGRAD_TANGENT_PYTHON or a sibling tangent-venv)")
    parser.add_argument("--worker", action="store_true",
                        help="internal: measure only --systems (plus hand-written) "
                             "for a parent run")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


def find_tangent_python(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    for candidate in TANGENT_PYTHON_CANDIDATES:
        # compare unresolved paths: venvs symlink to the same base interpreter
        if candidate and os.path.isfile(candidate) and \
                os.path.abspath(candidate) != os.path.abspath(sys.executable):
            return candidate
    return None


def run_tangent_subprocess(python: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run this script under ``python`` as a worker for tangent; its result dict."""
    with tempfile.TemporaryDirectory(prefix="srcgrad_bench_") as directory:
        out = os.path.join(directory, "tangent.json")
        command = [python, os.path.abspath(__file__), "--worker", "--systems", "tangent",
                   "--threads", str(args.threads), "--workloads", args.workloads,
                   "--json", out] + (["--quick"] if args.quick else []) \
            + (["--rounds", str(args.rounds)] if args.rounds else []) \
            + (["--min-sample-ms", str(args.min_sample_ms)] if args.min_sample_ms else [])
        completed = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        if completed.returncode != 0 or not os.path.exists(out):
            tail = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["?"]
            raise RuntimeError(f"{python} exited with status {completed.returncode}: {tail[0]}")
        with open(out) as handle:
            return json.load(handle)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from sgbench import hessian, machine, measure, memory, systems, timing, workloads

    plan = timing.TimingPlan.for_mode(args.quick)
    plan = timing.TimingPlan(
        rounds=args.rounds or plan.rounds,
        min_sample_s=plan.min_sample_s if args.min_sample_ms is None else args.min_sample_ms / 1e3)
    catalogue = systems.all_systems(args.threads)
    chosen = [s.strip() for s in args.systems.split(",") if s.strip()]
    selected = systems.select(catalogue, chosen) if chosen else catalogue
    run: dict[str, Any] = {
        "command": " ".join(shlex.quote(a) for a in [sys.executable, __file__] + args.argv),
        "machine": machine.describe_machine(args.threads),
        "quick": args.quick,
        "plan": {"rounds": plan.rounds, "min_sample_s": plan.min_sample_s},
        "tolerance": {"rtol": measure.RTOL, "atol_of_scale": measure.ATOL_OF_SCALE},
        "versions": {}, "workloads": {}, "notes": [],
    }
    loaded, missing = [], {}
    for system in selected:
        try:
            run["versions"][system.label] = system.load()
            loaded.append(system)
        except ImportError as error:
            missing[system.key] = measure.describe_error(error)
    tangent_run = None
    if "tangent" in missing and not args.worker:
        python = find_tangent_python(args.tangent_python)
        if python is not None:
            try:
                tangent_run = run_tangent_subprocess(python, args)
                run["versions"]["tangent-ad"] = tangent_run["versions"].get("tangent-ad", "?") \
                    + f" (subprocess {python})"
                del missing["tangent"]
            except Exception as error:  # the peer's failure is reported, not fatal
                missing["tangent"] = f"subprocess {python} failed: {error}"

    all_workloads = workloads.make_workloads()
    keys = [k.strip() for k in args.workloads.split(",") if k.strip()]
    for key in keys:
        result = measure.measure_workload(all_workloads[key], loaded, plan,
                                          compile_repeats=1 if args.quick else 5)
        for system_key, reason in missing.items():
            result["systems"][system_key] = {"status": "missing", "reason": reason}
        if tangent_run is not None:
            entry = tangent_run["workloads"][key]["systems"]["tangent"]
            entry["process"] = tangent_run["machine"]["python_executable"]
            result["systems"]["tangent"] = entry
        run["workloads"][key] = result
        print(f"measured {key}", file=sys.stderr)
    if args.worker:
        return run
    run["machine"]["load_average_after_gradients"] = machine.load_average()
    srcgrad_wanted = any(s.key == "srcgrad" for s in loaded)
    if srcgrad_wanted and not args.no_memory:
        steps = memory.QUICK_STEPS if args.quick else memory.FULL_STEPS
        run["memory"] = memory.measure_loop_memory(steps)
        print("measured memory", file=sys.stderr)
    if not args.no_hessian:
        wanted = [s.key for s in loaded]
        run["hessian"] = hessian.measure_hessian(plan, wanted)
        for key, reason in missing.items():
            if key in hessian.BUILDERS:
                run["hessian"]["systems"][key] = {"status": "missing", "reason": reason}
        print("measured the Hessian", file=sys.stderr)
    return run


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from sgbench.machine import limit_threads

    limit_threads(args.threads)  # before anything imports numpy
    from sgbench import report

    run = measure(args)
    markdown = report.to_markdown(run) if not args.worker else ""
    if args.json:
        with open(args.json, "w") as handle:
            handle.write(report.to_json(run))
    if args.md:
        with open(args.md, "w") as handle:
            handle.write(markdown)
    if markdown:
        print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
