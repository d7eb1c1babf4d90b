"""Peak memory of a long loop's gradient: what the loop tape keeps alive.

W1 stretched to ``steps`` iterations (1,000,000 in a full run): srcgrad's gradient against
the hand-written reverse sweep that stores the trajectory of ``y`` in a list, both measured
with ``tracemalloc`` (peak of Python allocations during one gradient call, after a warm-up
call so compilation is not counted). The hand-written sweep keeps one float per step, the
least any reverse sweep can keep. ``sg.grad`` of a function of one float emits forward mode
(the tangent carried through the loop, no tape), so srcgrad's peak stays near zero at any
length; were it to choose reverse mode again, the ratio would say how much more its tape
holds than the trajectory.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from .handwritten import scalar_loop_grad
from .measure import describe_error, disagreement
from .workloads import scalar_loop

FULL_STEPS = 1_000_000
QUICK_STEPS = 100_000


def traced_peak_bytes(call: Callable[[], Any]) -> tuple[int, Any]:
    """Peak bytes allocated (above the starting point) while ``call()`` runs, and its result."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - start, result


def measure_loop_memory(steps: int, x: float = 0.5) -> dict[str, Any]:
    """Peak memory of srcgrad's and the hand-written gradient of W1 at ``steps`` steps."""
    entry: dict[str, Any] = {"steps": steps, "workload": "W1", "x": x}
    hand_peak, want = traced_peak_bytes(lambda: scalar_loop_grad(x, steps))
    entry["handwritten_peak_bytes"] = hand_peak
    try:
        import srcgrad as sg

        gradient = sg.grad(scalar_loop)
        gradient(x, 3)  # compile outside the measurement (same signature: float, int)
        peak, got = traced_peak_bytes(lambda: gradient(x, steps))
    except ImportError as error:
        entry.update(status="missing", reason=describe_error(error))
        return entry
    except Exception as error:  # srcgrad's failure is the result
        entry.update(status="cannot", reason=describe_error(error))
        return entry
    problem = disagreement((np.asarray(got, dtype=float),), (np.asarray(want, dtype=float),))
    if problem is not None:
        entry.update(status="wrong", reason=problem)
        return entry
    entry.update(status="ok", srcgrad_peak_bytes=peak, ratio=peak / hand_peak)
    return entry
