"""Markdown and JSON reports of a run (the JSON is the run's result dict as is).

Table cells are short (ratio and median time, or WRONG / cannot / not installed); every
reason, fallback variant and caveat goes to a numbered note under the tables, so the
tables stay readable and nothing is hidden.
"""

from __future__ import annotations

import json
from typing import Any

COLUMNS = (("handwritten", "hand-written"), ("handwritten_reverse", "hand-written reverse sweep"),
           ("srcgrad", "srcgrad"), ("autograd", "autograd"),
           ("torch", "torch eager"), ("jax", "jax"), ("jax_jit", "jax.jit"),
           ("tangent", "tangent-ad"))
HESSIAN_COLUMNS = (("handwritten", "hand-written"), ("srcgrad", "srcgrad (sg.hessian)"),
                   ("autograd", "autograd.hessian"),
                   ("torch", "torch.autograd.functional.hessian"),
                   ("jax_jit", "jax.jit(jax.hessian)"))


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_ratio(ratio: float) -> str:
    return f"{ratio:.2f}×" if ratio < 10 else f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.1f}×"


class Notes:
    """Numbered footnotes, deduplicated."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def mark(self, text: str) -> str:
        if text not in self.texts:
            self.texts.append(text)
        return f" [{self.texts.index(text) + 1}]"

    def lines(self) -> list[str]:
        return [f"{i}. {text}" for i, text in enumerate(self.texts, 1)]


def _attempts_text(label: str, key: str, workload: str, entry: dict[str, Any]) -> str:
    prefix = "srcgrad cannot yet" if key == "srcgrad" and entry["status"] == "cannot" else label
    if "reason" in entry:
        return f"{prefix} on {workload}: {entry['reason']}"
    parts = [f"{a['variant']} variant: {'WRONG' if a['status'] == 'wrong' else 'cannot'}"
             f" ({a['reason']})" for a in entry.get("attempts", [])]
    return f"{prefix} on {workload}: " + "; ".join(parts)


def gradient_cell(key: str, label: str, workload_key: str, entry: dict[str, Any] | None,
                  notes: Notes) -> str:
    if entry is None:
        return "not run"
    status = entry["status"]
    if status == "missing":
        return "not installed" + notes.mark(f"{label}: {entry['reason']}")
    if status in ("cannot", "wrong"):
        text = _attempts_text(label, key, workload_key, entry)
        return ("WRONG" if status == "wrong" else "cannot") + notes.mark(text)
    cell = f"{format_ratio(entry['ratio'])} ({format_seconds(entry['median_s'])})"
    if key == "handwritten":
        cell = format_seconds(entry["median_s"])
    if not entry.get("as_written", True):
        why = _attempts_text(label, key, workload_key, entry)
        cell += f", {entry['variant']} variant" + notes.mark(why)
    if entry.get("process"):
        cell += notes.mark(f"{label} ran in a subprocess ({entry['process']}); its ratio is to "
                           "the hand-written gradient timed in that same process")
    return cell


def busy_machine_warning(machine: dict[str, Any]) -> list[str]:
    """A paragraph when other work shared the CPUs during the run (load above CPU count)."""
    loads = [machine.get("load_average_at_start", ""),
             machine.get("load_average_after_gradients", "")]
    try:
        peak = max(float(text.split()[0]) for text in loads if text and text != "unknown")
    except ValueError:
        return []
    if not machine.get("cpus") or peak <= machine["cpus"]:
        return []
    return [f"The machine was busy (1-minute load up to {peak:.1f} on {machine['cpus']} CPUs): "
            "absolute times are inflated and noisy; compare the ratios, which pair samples "
            "taken moments apart.", ""]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def to_markdown(run: dict[str, Any]) -> str:
    notes = Notes()
    machine = run["machine"]
    lines = ["# srcgrad benchmarks", "",
             f"Command: `{run['command']}`", "",
             f"Machine: {machine['platform']}; CPU {machine['cpu']} ({machine['cpus']} CPUs); "
             f"Python {machine['python']}; numpy {machine['numpy']}; "
             f"{machine['threads']} thread(s) ({machine['blas_threads']}); load average "
             f"{machine['load_average_at_start']} at the start"
             + (f", {machine['load_average_after_gradients']} after the gradient table"
                if "load_average_after_gradients" in machine else "") + ".", "",
             *busy_machine_warning(machine),
             "Systems: " + "; ".join(f"{k} {v}" for k, v in run["versions"].items()) + ".", "",
             f"Timing: median per-call time over {run['plan']['rounds']} interleaved rounds "
             f"(each sample at least {run['plan']['min_sample_s'] * 1e3:g} ms); the ratio to the "
             "hand-written gradient is the median of the per-round ratios, measured in the "
             "same process; inputs already in each "
             "system's own types. A gradient is timed only after it matched the hand-written "
             f"one (rtol {run['tolerance']['rtol']:g}, float64). The hand-written baseline is "
             "the best derivative a person writes: for W1 and W4 (one float input) the forward "
             "tangent carried through the loop; the hand-written reverse sweep over a stored "
             "trajectory is reported beside it (for W2 and W3 the two are the same code).", "",
             "## Gradient time, ratio to hand-written", ""]
    rows = []
    for key, workload in run["workloads"].items():
        row = [f"{key} {workload['title']}"]
        for column, label in COLUMNS:
            row.append(gradient_cell(column, label, key, workload["systems"].get(column), notes))
        rows.append(row)
    lines += _table(["workload"] + [label for _, label in COLUMNS], rows)

    lines += ["", "## First call (compile) latency, ms", ""]
    compiled = [(c, label) for c, label in COLUMNS if c in ("srcgrad", "jax_jit", "tangent")]
    rows = []
    for key, workload in run["workloads"].items():
        row = [key]
        for column, _ in compiled:
            entry = workload["systems"].get(column)
            ok = entry is not None and entry["status"] == "ok"
            row.append(f"{entry['first_call_ms']:.1f} (median of {entry['first_call_repeats']})"
                       if ok else "—")
        rows.append(row)
    lines += _table(["workload"] + [label for _, label in compiled], rows)
    lines += ["", "From asking for the gradient to the first result (srcgrad: after "
              "`sg.clear_cache()`; parse, lower, differentiate, optimise, emit, compile)."]

    memory = run.get("memory")
    if memory:
        lines += ["", "## Peak memory of W1 stretched to a long loop (tracemalloc)", ""]
        hand = memory["handwritten_peak_bytes"] / 2**20
        if memory["status"] == "ok":
            lines += _table(["steps", "hand-written (stored trajectory)", "srcgrad", "ratio"],
                            [[f"{memory['steps']:,}", f"{hand:.1f} MiB",
                              f"{memory['srcgrad_peak_bytes'] / 2**20:.1f} MiB",
                              format_ratio(memory["ratio"])]])
        else:
            lines += [f"{memory['steps']:,} steps: hand-written {hand:.1f} MiB; srcgrad "
                      f"{memory['status']}: {memory['reason']}"]

    hessian = run.get("hessian")
    if hessian:
        lines += ["", f"## {hessian['title']}", ""]
        row = []
        for column, label in HESSIAN_COLUMNS:
            row.append(gradient_cell(column, label, "the Hessian",
                                     hessian["systems"].get(column), notes))
        lines += _table([label for _, label in HESSIAN_COLUMNS], [row])

    if run.get("notes") or notes.texts:
        lines += ["", "## Notes", "", *notes.lines(), *(f"- {n}" for n in run.get("notes", []))]
    return "\n".join(lines) + "\n"


def to_json(run: dict[str, Any]) -> str:
    return json.dumps(run, indent=2, sort_keys=False, default=str) + "\n"
