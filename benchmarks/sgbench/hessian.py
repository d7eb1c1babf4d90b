"""The Hessian of a 50-parameter function with a loop (issue 6), side by side.

``chain_energy`` (a loop over neighbour pairs with scalar indexing) differentiated twice:
``sg.hessian`` when srcgrad has it, ``autograd.hessian``,
``torch.autograd.functional.hessian``, ``jax.hessian`` (jitted), against the hand-written
tridiagonal Hessian. Checked and timed like the gradient workloads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .handwritten import chain_energy_hessian
from .measure import describe_error, disagreement
from .timing import TimingPlan, interleaved_medians, paired_ratio
from .workloads import chain_energy, hessian_point, rebind_numpy

Call = Callable[[], Any]


def _srcgrad(p: np.ndarray) -> Call:
    import srcgrad as sg

    if not hasattr(sg, "hessian"):
        raise LookupError("sg.hessian does not exist yet (forward mode / issue 6)")
    sg.clear_cache()
    hessian = sg.hessian(chain_energy)
    return lambda: hessian(p)


def _autograd(p: np.ndarray) -> Call:
    import autograd
    import autograd.numpy as anp

    hessian = autograd.hessian(rebind_numpy(chain_energy, anp))
    return lambda: hessian(p)


def _torch(p: np.ndarray) -> Call:
    import torch

    energy = rebind_numpy(chain_energy, torch)
    tensor = torch.from_numpy(p)
    return lambda: torch.autograd.functional.hessian(energy, tensor)


def _jax_jit(p: np.ndarray) -> Call:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    hessian = jax.jit(jax.hessian(rebind_numpy(chain_energy, jnp)))
    point = jnp.asarray(p)
    return lambda: jax.block_until_ready(hessian(point))


BUILDERS: dict[str, Callable[[np.ndarray], Call]] = {
    "handwritten": lambda p: lambda: chain_energy_hessian(p),
    "srcgrad": _srcgrad,
    "autograd": _autograd,
    "torch": _torch,
    "jax_jit": _jax_jit,
}


def measure_hessian(plan: TimingPlan, keys: list[str] | None = None) -> dict[str, Any]:
    """Check and time every available Hessian; ratios to the hand-written one."""
    p = hessian_point()
    want = (chain_energy_hessian(p),)
    results: dict[str, Any] = {}
    calls: dict[str, Call] = {}
    for key, build in BUILDERS.items():
        if keys is not None and key not in keys and key != "handwritten":
            continue
        try:
            call = build(p)
            got = (np.asarray(call(), dtype=np.float64),)
        except ImportError as error:
            results[key] = {"status": "missing", "reason": describe_error(error)}
            continue
        except Exception as error:  # the system's failure is the result
            results[key] = {"status": "cannot", "reason": describe_error(error)}
            continue
        problem = disagreement(got, want)
        if problem is not None:
            results[key] = {"status": "wrong", "reason": problem}
            continue
        calls[key] = call
    medians = interleaved_medians(calls, plan)
    reference = medians["handwritten"]["samples_s"]
    for key, timing in medians.items():
        results[key] = {"status": "ok", **timing,
                        "ratio": paired_ratio(timing["samples_s"], reference)}
    return {"title": f"Hessian of chain_energy ({p.size} parameters, loop of {p.size - 1} "
                     "scalar-indexed steps)", "systems": results}
