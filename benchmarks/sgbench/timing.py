"""Side-by-side timing: ``timeit``-style loops, interleaved rounds, medians.

Each system's call is first calibrated to a loop count whose total takes at least
``min_sample_s`` (as ``timeit.Timer.autorange`` does). Then every round times one sample of
every system, rotating the order each round, so slow drift of the machine (frequency,
other load) hits all systems alike. The result per system is the median per-call time
over the rounds, and its ratio to a reference is the median of the per-round ratios
(:func:`paired_ratio`).
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TimingPlan:
    """How hard to measure: ``rounds`` samples per system of at least ``min_sample_s``."""

    rounds: int
    min_sample_s: float

    @classmethod
    def for_mode(cls, quick: bool) -> TimingPlan:
        return cls(rounds=5, min_sample_s=0.005) if quick else cls(rounds=15, min_sample_s=0.05)


def calibrate(call: Callable[[], object], min_sample_s: float,
              clock: Callable[[], float] = timeit.default_timer) -> int:
    """The loop count (1, 2, 5, 10, 20, ...) whose total time reaches ``min_sample_s``."""
    timer = timeit.Timer(call, timer=clock)
    number = 1
    while True:
        for factor in (1, 2, 5):
            if timer.timeit(number * factor) >= min_sample_s:
                return number * factor
        number *= 10


def interleaved_medians(calls: dict[str, Callable[[], object]], plan: TimingPlan,
                        clock: Callable[[], float] = timeit.default_timer
                        ) -> dict[str, dict[str, float]]:
    """Median seconds per call of each named callable, measured in rotating rounds.

    ``clock`` is wall time by default; ``time.thread_time`` (CPU time of this thread)
    leaves out the time other processes held the CPU, for a machine shared with others.
    Returns ``{name: {"median_s", "min_s", "number", "rounds"}}``.
    """
    names = list(calls)
    timers = {name: timeit.Timer(calls[name], timer=clock) for name in names}
    numbers = {name: calibrate(calls[name], plan.min_sample_s, clock) for name in names}
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(plan.rounds):
        shift = round_index % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            samples[name].append(timers[name].timeit(numbers[name]) / numbers[name])
    return {name: {"median_s": statistics.median(samples[name]),
                   "min_s": min(samples[name]),
                   "number": numbers[name],
                   "rounds": plan.rounds,
                   "samples_s": samples[name]}
            for name in names}


def paired_ratio(samples: list[float], reference_samples: list[float]) -> float:
    """Median over rounds of ``sample / reference sample`` of the same round.

    Both samples of a round were taken within moments of each other, so a slow phase of the
    machine (another process, frequency change) divides out; the ratio of the two overall
    medians would mix samples from different phases.
    """
    return statistics.median(s / r for s, r in zip(samples, reference_samples))
