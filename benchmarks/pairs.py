"""Inlined or called: the gradient of a 100-step RK4 of a 2-state ODE, its dynamics called 4
times per step, with the dynamics inlined (srcgrad's default for a function that does not
call itself) against the dynamics called through its own pair of emitted functions (a
forward sweep returning a record, its adjoint reading it: what a recursive function gets,
``srcgrad/compiler/pairs.py``). The policy's rule (``CompileTimePolicy.should_call``)
keeps the faster one as the default; this script is the measurement behind it.

    python benchmarks/pairs.py [--steps 100] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
from sgbench.programs import rk4_loss

import srcgrad as sg
from srcgrad.compiler.frontend.policy import POLICY, Decision

STEPS = 100


# the dynamics is the RK4 row's own (benchmarks/programs.py), so both measure one program
def _called(recursive: bool) -> Decision:
    return Decision(True, "every user function called (measurement)")


def _gradient(pair: bool) -> Any:
    """``sg.grad(rk4_loss)`` compiled with the dynamics inlined or called through its pair."""
    original = POLICY.should_call
    sg.clear_cache()  # the two versions share a cache key: compile this one afresh
    if pair:
        POLICY.should_call = _called  # type: ignore[method-assign]
    try:
        df = sg.grad(rk4_loss)
        df(*ARGS)  # compile now, under this policy
    finally:
        POLICY.should_call = original  # type: ignore[method-assign]
    return df


ARGS: tuple[Any, ...] = ()


def main() -> None:
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--rounds", type=int, default=7)
    opts = parser.parse_args()
    ARGS = (np.array([9.81, 0.3]), np.array([1.0, 0.0]), opts.steps)
    inlined, paired = _gradient(False), _gradient(True)
    a, b = inlined(*ARGS), paired(*ARGS)
    assert np.allclose(a, b, rtol=1e-12, atol=1e-14), (a, b)
    ((_, entry),) = paired.__srcgrad__.dispatcher.versions  # the version measured
    assert "_call_fwd_pendulum(" in entry.text
    times: dict[str, list[float]] = {"inlined": [], "pair": []}
    for _ in range(opts.rounds):
        for name, df in (("inlined", inlined), ("pair", paired)):
            start = time.perf_counter()
            for _ in range(20):
                df(*ARGS)
            times[name].append((time.perf_counter() - start) / 20)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"gradient of a {opts.steps}-step RK4 of a 2-state ODE (median of {opts.rounds}):")
    for name, t in med.items():
        print(f"  {name:8s} {t * 1e3:8.3f} ms  ({t / med['inlined']:.2f}x inlined)")


if __name__ == "__main__":
    main()
