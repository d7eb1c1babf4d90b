"""srcgrad on real programs (issue 16), every row measured side by side in one run.

Rows: W1-W4 against both hand-written baselines (the forward tangent and the reverse sweep
over a stored trajectory); a small MLP's softmax cross-entropy gradient against the
hand-written one; RK4 and an attention block, gradient against the forward pass; the
Hessian of a loop over 50 scalar elements against a hand-written Hessian that loops as the
function does (and the vectorised one); the runtime's 100-op Tensor graph (W5) against
NumPy written by hand (and a 40-line NumPy tape); and the first call of the small MLP's
gradient. Every srcgrad result is checked against the hand-written derivative before it is
timed.

    python benchmarks/programs.py [--quick] [--threads 1] [--md PATH] [--json PATH]
                                  [--readme README.md] [--rows mlp,rk4,...] [--tiny]

``--readme`` rewrites the table between the markers in the README's "Performance" section
from this run. ``--tiny`` shrinks every program (a smoke run for the tests; its figures
mean nothing). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = ("W1", "W2", "W3", "W4", "mlp", "rk4", "attention", "hessian", "W5", "first_call")
README_START = "<!-- benchmarks/programs.py table: start -->"
README_END = "<!-- benchmarks/programs.py table: end -->"
Call = Callable[[], Any]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 short rounds instead of 15")
    parser.add_argument("--threads", type=int, default=1, help="numpy/BLAS threads (default 1)")
    parser.add_argument("--rounds", type=int, help="override the number of timing rounds")
    parser.add_argument("--min-sample-ms", type=float, help="override the minimum sample length")
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated subset")
    parser.add_argument("--tiny", action="store_true", help="tiny sizes (smoke test only)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this thread's CPU time instead of wall time (a machine "
                             "shared with other work: leaves out the time others ran)")
    parser.add_argument("--md", metavar="PATH", help="write the markdown report")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--readme", metavar="PATH",
                        help="rewrite the table between the README's markers")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


class Row:
    """One table row: what was divided by what, the goal, and the timed callables."""

    def __init__(self, key: str, title: str, measured_as: str, goal: float | None,
                 numerator: str, denominator: str, unit: str = "ratio") -> None:
        self.key, self.title, self.measured_as, self.goal = key, title, measured_as, goal
        self.numerator, self.denominator, self.unit = numerator, denominator, unit
        self.calls: dict[str, Call] = {}
        self.result: dict[str, Any] = {"key": key, "title": title, "measured_as": measured_as,
                                       "goal": goal, "unit": unit, "status": "ok"}


def checked(row: Row, got: Any, want: Any) -> bool:
    """Compare as the gradient table does (rtol 1e-8); a mismatch marks the row WRONG."""
    import numpy as np
    from sgbench.measure import disagreement

    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    problem = disagreement(tuple(np.asarray(g, dtype=np.float64) for g in got),
                           tuple(np.asarray(w, dtype=np.float64) for w in want))
    if problem is not None:
        row.result.update(status="wrong", reason=problem)
    return problem is None


def guarded(row: Row, build: Callable[[Row], None]) -> Row:
    """Run ``build``; srcgrad's failure becomes the row's result, not a crash."""
    from sgbench.measure import describe_error

    try:
        build(row)
    except Exception as error:  # srcgrad (or a program) cannot: reported in the table
        row.result.update(status="cannot", reason=describe_error(error))
    return row


def time_row(row: Row, plan: Any, clock: Callable[[], float],
             extra: dict[str, tuple[str, str]] | None = None) -> None:
    """Interleaved medians of the row's calls; its ratio numerator / denominator and any
    ``extra`` ratios ``{name: (numerator, denominator)}``, each a median of per-round ratios."""
    from sgbench.timing import interleaved_medians, paired_ratio

    if row.result["status"] != "ok":
        return
    medians = interleaved_medians(row.calls, plan, clock)
    row.result["median_s"] = {name: m["median_s"] for name, m in medians.items()}
    pairs = {"ratio": (row.numerator, row.denominator), **(extra or {})}
    for name, (top, bottom) in pairs.items():
        row.result[name] = paired_ratio(medians[top]["samples_s"], medians[bottom]["samples_s"])


def mlp_row(tiny: bool) -> Row:
    from sgbench import programs as P

    row = Row("mlp", "small MLP, softmax cross-entropy, batch 150, 2-16-3",
              "srcgrad gradient / hand-written gradient", 1.6, "srcgrad", "handwritten")

    def build(row: Row) -> None:
        import srcgrad as sg

        args = P.mlp_point(batch=10 if tiny else 150)
        df = sg.grad(P.mlp_xent, wrt=(0, 1, 2, 3))
        if checked(row, df(*args), P.mlp_xent_grad(*args)):
            row.calls = {"handwritten": lambda: P.mlp_xent_grad(*args),
                         "srcgrad": lambda: df(*args)}

    return guarded(row, build)


def rk4_row(tiny: bool) -> Row:
    from sgbench import programs as P

    row = Row("rk4", "RK4, 100 steps of a 2-state ODE (dynamics a user function, 4 calls a step)",
              "srcgrad gradient / forward pass", 4.0, "srcgrad", "forward")

    def build(row: Row) -> None:
        import srcgrad as sg

        theta, s0, steps = P.rk4_point()
        steps = 3 if tiny else steps
        df = sg.grad(P.rk4_loss)
        if checked(row, df(theta, s0, steps), P.rk4_loss_grad(theta, s0, steps)):
            row.calls = {"forward": lambda: P.rk4_loss(theta, s0, steps),
                         "srcgrad": lambda: df(theta, s0, steps),
                         "handwritten": lambda: P.rk4_loss_grad(theta, s0, steps)}

    return guarded(row, build)


def attention_row(tiny: bool) -> Row:
    from sgbench import programs as P

    row = Row("attention", "attention block (einsum, softmax), batch 8, length 32, width 16",
              "srcgrad gradient / forward pass", 2.5, "srcgrad", "forward")

    def build(row: Row) -> None:
        import srcgrad as sg

        args = P.attention_point(batch=2, length=3, width=4) if tiny else P.attention_point()
        df = sg.grad(P.attention, wrt=(0, 1, 2))
        if checked(row, df(*args), P.attention_grad(*args)):
            row.calls = {"forward": lambda: P.attention(*args), "srcgrad": lambda: df(*args),
                         "handwritten": lambda: P.attention_grad(*args)}

    return guarded(row, build)


def hessian_row(tiny: bool) -> Row:
    from sgbench import hessian, programs
    from sgbench.workloads import hessian_point

    row = Row("hessian", "Hessian of a loop over 50 scalar elements (chain_energy)",
              "sg.hessian / hand-written Hessian looping over the elements", 15.0,
              "srcgrad", "handwritten_loop")

    def build(row: Row) -> None:
        p = hessian_point(6 if tiny else 50)
        srcgrad_call = hessian.BUILDERS["srcgrad"](p)
        want = hessian.BUILDERS["handwritten"](p)()
        if checked(row, programs.chain_energy_hessian_loop(p), want) and \
                checked(row, srcgrad_call(), want):
            row.calls = {"handwritten_loop": lambda: programs.chain_energy_hessian_loop(p),
                         "handwritten_vectorised": hessian.BUILDERS["handwritten"](p),
                         "srcgrad": srcgrad_call}

    return guarded(row, build)


def w5_row(tiny: bool) -> Row:
    # the goal is against NumPy written by hand (its table puts the tape at 2.7x)
    row = Row("W5", "runtime: 100-op Tensor graph on float32[4], built and backpropagated",
              "srcgrad Tensor graph / NumPy gradient written by hand", 3.0, "srcgrad",
              "numpy_by_hand")

    def build(row: Row) -> None:
        import numpy as np
        import runtime_overhead
        from sgbench.tape import Var

        import srcgrad as sg

        rng = np.random.default_rng(0)
        x0, w0, b0 = (rng.standard_normal(4).astype(np.float32) for _ in range(3))
        srcgrad_call = runtime_overhead.graph_step(sg.tensor, x0, w0, b0)
        tape_call = runtime_overhead.graph_step(Var, x0, w0, b0)
        hand = runtime_overhead.numpy_step(x0, w0, b0)
        want = hand()[0]
        # float32 arithmetic: compare at float32's precision, not the table's 1e-8
        for name, got in (("srcgrad", srcgrad_call().numpy()), ("tape", tape_call())):
            if not np.allclose(got, want, rtol=1e-4, atol=1e-6):
                row.result.update(status="wrong", reason=f"{name}'s x.grad differs from the "
                                  "NumPy gradient beyond float32 rounding")
                return
        row.calls = {"tape": tape_call, "srcgrad": srcgrad_call, "numpy_by_hand": hand}

    return guarded(row, build)


def first_call_row(tiny: bool, repeats: int, clock: Callable[[], float]) -> Row:
    from sgbench import programs as P

    row = Row("first_call", "first call of the small MLP's gradient",
              "ms from sg.grad after sg.clear_cache() to the first result", 30.0,
              "", "", unit="ms")

    def build(row: Row) -> None:
        import srcgrad as sg

        args = P.mlp_point(batch=10 if tiny else 150)
        samples = []
        for _ in range(repeats):
            sg.clear_cache()
            start = clock()
            got = sg.grad(P.mlp_xent, wrt=(0, 1, 2, 3))(*args)
            samples.append(clock() - start)
            if not checked(row, got, P.mlp_xent_grad(*args)):
                return
        row.result["value"] = statistics.median(samples) * 1e3
        row.result["repeats"] = repeats

    return guarded(row, build)


def workload_row(key: str, plan: Any, clock: Callable[[], float]) -> Row:
    """W1-W4 from ``run.py``'s workloads: srcgrad against both hand-written baselines."""
    from sgbench import measure, systems, workloads

    goals = {"W1": 1.15, "W2": 1.10, "W3": 1.05, "W4": 1.15}
    workload = workloads.make_workloads()[key]
    row = Row(key, workload.title, "srcgrad gradient / hand-written gradient", goals[key],
              "srcgrad", "handwritten")
    chosen = [systems.HandWritten(), systems.HandWrittenReverse(), systems.SrcGrad()]
    for system in chosen:
        system.load()
    result = measure.measure_workload(workload, chosen, plan, clock=clock)["systems"]
    entry = result["srcgrad"]
    if entry["status"] != "ok":
        reasons = "; ".join(a["reason"] for a in entry["attempts"])
        row.result.update(status=entry["status"], reason=reasons)
        return row
    from sgbench.timing import paired_ratio

    row.result["ratio"] = entry["ratio"]
    row.result["ratio_to_reverse_sweep"] = paired_ratio(
        entry["samples_s"], result["handwritten_reverse"]["samples_s"])
    row.result["median_s"] = {k: result[k]["median_s"] for k in result}
    return row


def measure_all(args: argparse.Namespace) -> dict[str, Any]:
    from sgbench import machine, timing

    plan = timing.TimingPlan.for_mode(args.quick or args.tiny)
    plan = timing.TimingPlan(
        rounds=args.rounds or plan.rounds,
        min_sample_s=plan.min_sample_s if args.min_sample_ms is None else args.min_sample_ms / 1e3)
    clock = time.thread_time if args.cpu_time else time.perf_counter
    wanted = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = set(wanted) - set(ROWS)
    if unknown:
        raise SystemExit(f"unknown row(s) {sorted(unknown)}; choose from {list(ROWS)}")
    run: dict[str, Any] = {
        "command": " ".join(shlex.quote(a) for a in ["python", "benchmarks/programs.py",
                                                      *args.argv]),
        "machine": machine.describe_machine(args.threads), "tiny": args.tiny,
        "plan": {"rounds": plan.rounds, "min_sample_s": plan.min_sample_s},
        "clock": "CPU time of the measuring thread" if args.cpu_time else "wall time",
        "rows": [],
    }
    builders: dict[str, Callable[[], Row]] = {
        "mlp": lambda: mlp_row(args.tiny), "rk4": lambda: rk4_row(args.tiny),
        "attention": lambda: attention_row(args.tiny), "hessian": lambda: hessian_row(args.tiny),
        "W5": lambda: w5_row(args.tiny),
        "first_call": lambda: first_call_row(args.tiny, 1 if args.tiny else 5, clock),
    }
    extras = {"rk4": {"handwritten_ratio": ("handwritten", "forward")},
              "attention": {"handwritten_ratio": ("handwritten", "forward")},
              "hessian": {"ratio_to_vectorised": ("srcgrad", "handwritten_vectorised")},
              "W5": {"ratio_to_tape": ("srcgrad", "tape"),
                     "tape_to_numpy_by_hand": ("tape", "numpy_by_hand")}}
    for key in (k for k in ROWS if k in wanted):
        if key.startswith("W") and key != "W5":
            row = workload_row(key, plan, clock)
        else:
            row = builders[key]()
            if row.unit == "ratio":
                time_row(row, plan, clock, extras.get(key))
        run["rows"].append(row.result)
        print(f"measured {key}", file=sys.stderr)
    run["machine"]["load_average_after"] = machine.load_average()
    return run


def cell(result: dict[str, Any]) -> str:
    if result["status"] != "ok":
        return ("WRONG" if result["status"] == "wrong" else "cannot") + f": {result['reason']}"
    from sgbench.report import format_ratio, format_seconds

    if result["unit"] == "ms":
        return f"{result['value']:.1f} ms (median of {result['repeats']})"
    text = format_ratio(result["ratio"])
    times = ", ".join(f"{k} {format_seconds(v)}" for k, v in result["median_s"].items())
    details = {"ratio_to_reverse_sweep": "{} of the hand-written reverse sweep",
               "handwritten_ratio": "hand-written gradient / forward {}",
               "ratio_to_vectorised": "{} of the vectorised hand-written Hessian",
               "ratio_to_tape": "{} of a 40-line NumPy tape",
               "tape_to_numpy_by_hand": "tape / NumPy gradient by hand {}"}
    notes = [template.format(format_ratio(result[k])) for k, template in details.items()
             if k in result]
    return f"**{text}**" + "".join(f"; {n}" for n in notes) + f" ({times})"


def met(result: dict[str, Any]) -> str:
    if result["status"] != "ok" or result["goal"] is None:
        return "no"
    value = result["value"] if result["unit"] == "ms" else result["ratio"]
    return "yes" if value <= result["goal"] else "no"


def table(run: dict[str, Any]) -> list[str]:
    lines = ["| workload | measured as | srcgrad | goal | met |", "|---|---|---|---:|---|"]
    for result in run["rows"]:
        goal = f"<= {result['goal']:g} ms" if result["unit"] == "ms" else f"<= {result['goal']:g}×"
        lines.append(f"| {result['key']} {result['title']} | {result['measured_as']} | "
                     f"{cell(result)} | {goal} | {met(result)} |")
    return lines


def to_markdown(run: dict[str, Any]) -> str:
    m = run["machine"]
    return "\n".join([
        "# srcgrad on real programs", "", f"Command: `{run['command']}`", "",
        f"Machine: {m['platform']}; CPU {m['cpu']} ({m['cpus']} CPUs); Python {m['python']}; "
        f"numpy {m['numpy']}; {m['threads']} thread(s) ({m['blas_threads']}); load average "
        f"{m['load_average_at_start']} at the start, {m['load_average_after']} at the end.", "",
        f"Timing ({run['clock']}): median of {run['plan']['rounds']} interleaved rounds "
        "(samples of at least "
        f"{run['plan']['min_sample_s'] * 1e3:g} ms); each ratio is the median of the per-round "
        "ratios. Every srcgrad result matched the hand-written derivative (rtol 1e-8; W5 at "
        "float32 precision) before it was timed." + (" TINY SIZES: smoke run only."
                                                      if run["tiny"] else ""), "",
        *table(run), ""])


def rewrite_readme(path: str, run: dict[str, Any]) -> None:
    """Replace the table between the README markers by this run's table."""
    with open(path) as handle:
        text = handle.read()
    m = run["machine"]
    block = "\n".join([README_START,
                       f"Measured by `{run['command']}` ({m['cpu']}, {m['cpus']} CPUs, "
                       f"numpy {m['numpy']}, {m['threads']} thread(s), load average "
                       f"{m['load_average_at_start']}):", "", *table(run), README_END])
    pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path} has no {README_START!r} ... {README_END!r} markers")
    with open(path, "w") as handle:
        handle.write(pattern.sub(lambda _: block, text))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from sgbench.machine import limit_threads

    limit_threads(args.threads)  # before anything imports numpy
    from sgbench.report import to_json

    run = measure_all(args)
    markdown = to_markdown(run)
    if args.json:
        with open(args.json, "w") as handle:
            handle.write(to_json(run))
    if args.md:
        with open(args.md, "w") as handle:
            handle.write(markdown)
    if args.readme:
        rewrite_readme(args.readme, run)
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
