"""One workload across the systems: check every gradient, then time the correct ones.

For each system the workload's variants are tried in order (the program as written
first): the first variant that runs and agrees with the hand-written gradient (rtol 1e-8,
atol 1e-10 of the largest reference entry, float64) is timed; earlier attempts are kept as
notes. A system whose best attempt disagrees is ``wrong`` and not timed; one that raises
on every variant is ``cannot`` with the reason. Timing is interleaved across the systems
(:mod:`.timing`), and ratios are to the hand-written gradient of the same process, as the
median of the per-round ratios.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .systems import Call, HandWritten, System
from .timing import TimingPlan, interleaved_medians, paired_ratio
from .workloads import Workload

RTOL = 1e-8
ATOL_OF_SCALE = 1e-10


@dataclass
class Attempt:
    system: System
    status: str = "cannot"  # ok | wrong | cannot
    variant: str = ""
    call: Call | None = None
    first_call_s: float = 0.0
    attempts: list[dict[str, str]] = field(default_factory=list)


def describe_error(error: BaseException, limit: int = 300) -> str:
    """``Type: first line of the message``, shortened for a table note."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    text = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def disagreement(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> str | None:
    """``None`` when ``got`` matches ``want``; otherwise what differs."""
    if len(got) != len(want):
        return f"returned {len(got)} gradient(s), expected {len(want)}"
    for index, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return f"gradient {index} has shape {g.shape}, expected {w.shape}"
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL_OF_SCALE * scale, equal_nan=False):
            error = float(np.max(np.abs(g - w))) / (scale or 1.0)
            return f"max error {error:.2e} relative to the largest reference entry"
    return None


def prepare(system: System, workload: Workload,
            reference: Sequence[np.ndarray]) -> Attempt:
    """Try the workload's variants on ``system`` until one runs and agrees."""
    result = Attempt(system)
    for label, fn in workload.variants.items():
        try:
            with warnings.catch_warnings():  # e.g. torch on math.sin(tensor): reported below
                warnings.simplefilter("ignore")
                call, first_call_s = system.build(fn, workload)
                got = system.to_numpy(call())
        except Exception as error:  # a peer's own failure is a result, not a crash
            result.attempts.append({"variant": label, "status": "cannot",
                                    "reason": describe_error(error)})
            continue
        problem = disagreement(got, reference)
        if problem is not None:
            result.attempts.append({"variant": label, "status": "wrong", "reason": problem})
            continue
        result.status, result.variant = "ok", label
        result.call, result.first_call_s = call, first_call_s
        return result
    statuses = {a["status"] for a in result.attempts}
    result.status = "wrong" if "wrong" in statuses else "cannot"
    return result


def first_call_latency(attempt: Attempt, workload: Workload, repeats: int) -> float:
    """Median seconds from asking ``attempt``'s system for the gradient to the first
    result, over ``repeats`` fresh builds (the first one made by :func:`prepare` counts)."""
    fn = workload.variants[attempt.variant]
    samples = [attempt.first_call_s]
    for _ in range(repeats - 1):
        samples.append(attempt.system.build(fn, workload)[1])
    return statistics.median(samples)


def measure_workload(workload: Workload, systems: Sequence[System], plan: TimingPlan,
                     compile_repeats: int = 1, clock: Callable[[], float] = time.perf_counter
                     ) -> dict[str, Any]:
    """Check and time ``workload`` on ``systems`` (the first must be hand-written);
    ``clock`` as in :func:`.timing.interleaved_medians`."""
    assert isinstance(systems[0], HandWritten), "the hand-written baseline comes first"
    handwritten = systems[0]
    reference_call, _ = handwritten.build(next(iter(workload.variants.values())), workload)
    reference = handwritten.to_numpy(reference_call())
    attempts = [prepare(system, workload, reference) for system in systems]
    timed = {a.system.key: a.call for a in attempts if a.status == "ok" and a.call}
    medians = interleaved_medians(timed, plan, clock)
    baseline = medians[handwritten.key]["median_s"]
    first_variant = next(iter(workload.variants))
    results: dict[str, Any] = {}
    for attempt in attempts:
        entry: dict[str, Any] = {"status": attempt.status, "attempts": attempt.attempts}
        if attempt.status == "ok":
            entry.update(medians[attempt.system.key])
            entry["ratio"] = paired_ratio(entry["samples_s"],
                                          medians[handwritten.key]["samples_s"])
            entry["reference_median_s"] = baseline
            entry["variant"] = attempt.variant
            entry["as_written"] = attempt.variant == first_variant
            repeats = compile_repeats if attempt.system.compiles else 1
            entry["first_call_ms"] = first_call_latency(attempt, workload, repeats) * 1e3
            entry["first_call_repeats"] = repeats
        results[attempt.system.key] = entry
    return {"title": workload.title, "systems": results}
