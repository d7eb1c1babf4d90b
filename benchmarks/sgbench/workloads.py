"""The benchmark workloads as plain Python/NumPy source, one function per variant.

Every system differentiates these very functions. Source-reading systems (srcgrad,
tangent) read this file; tracing systems (autograd, torch, jax) run the same code object
with the global ``np`` rebound to their own NumPy-like namespace (see
:func:`rebind_numpy`), so no peer gets a rewritten program.

Scalar workloads come in two variants: ``math`` (as a user writes it on Python floats,
``math.sin``) and ``numpy`` (the same program with ``np.sin``/``np.cos``/``np.abs``), used
for systems that cannot differentiate ``math.*`` and labelled as such in the report.
Nothing here imports srcgrad or a peer: the tangent subprocess runs in a numpy-only venv.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

W1_STEPS = 200
NEWTON_MAX_STEPS = 50
NEWTON_TOLERANCE = 1e-10


# --- W1: scalar loop on Python floats --------------------------------------------------

def scalar_loop(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y)
    return y


def scalar_loop_np(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + np.sin(y)
    return y


# --- W2: small-array chain, 35 elementwise ops then a sum ------------------------------

def small_chain(x):
    h1 = np.sin(x) * x + 1.0
    h2 = np.exp(-h1 * 0.5) * h1
    h3 = np.tanh(h2 - x) + h2 * h2
    h4 = np.sqrt(h3 * h3 + 1.0) / h1
    h5 = np.cos(h4) * h3 - h4 / 3.0
    h6 = np.log1p(h5 * h5) + x * h4
    h7 = np.sin(h6 + h2) * np.exp(-x * x)
    h8 = h7 * h6 - np.tanh(h5) * 0.5
    return np.sum(h8 * h8)


# --- W3: MLP loss ------------------------------------------------------------------------

def mlp_loss(W1, W2, x, y):
    return np.mean((np.tanh(x @ W1) @ W2 - y) ** 2)


# --- W4: Newton's method for x = cos(a * x), a data-dependent trip count ----------------

def newton_fixed_point(a):
    x = 1.0
    delta = 1.0
    steps = 0
    while abs(delta) >= 1e-10 and steps < 50:
        fx = x - math.cos(a * x)
        dfx = 1.0 + a * math.sin(a * x)
        delta = fx / dfx
        x = x - delta
        steps = steps + 1
    return x


def newton_fixed_point_np(a):
    x = 1.0
    delta = 1.0
    steps = 0
    while abs(delta) >= 1e-10 and steps < 50:
        fx = x - np.cos(a * x)
        dfx = 1.0 + a * np.sin(a * x)
        delta = fx / dfx
        x = x - delta
        steps = steps + 1
    return x


# --- Hessian workload: a 50-parameter chain energy with a loop ---------------------------

def chain_energy(p):
    energy = 0.0
    for i in range(len(p) - 1):
        d = p[i + 1] - p[i]
        energy = energy + np.sin(p[i]) * d * d
    return energy


def rebind_numpy(fn: Callable[..., Any], namespace: Any) -> Callable[..., Any]:
    """``fn`` with its global ``np`` replaced by ``namespace`` (autograd.numpy, torch, jnp)."""
    globals_ = dict(fn.__globals__)
    globals_["np"] = namespace
    return types.FunctionType(fn.__code__, globals_, fn.__name__, fn.__defaults__,
                              fn.__closure__)


@dataclass
class Workload:
    """One benchmark: the function variants, example arguments, and what to differentiate.

    ``variants`` maps a label to a function; the first is the program as written, later
    ones are fallbacks for systems that cannot run it (reported with the label).
    ``wrt`` are the positional indices differentiated; the other arguments are constants
    (``static`` marks Python ints that a jit must treat as compile-time constants).
    """

    key: str
    title: str
    variants: dict[str, Callable[..., Any]]
    args: tuple[Any, ...]
    wrt: tuple[int, ...]
    static: tuple[int, ...] = ()
    scalar: bool = False
    notes: list[str] = field(default_factory=list)


def make_workloads(seed: int = 0) -> dict[str, Workload]:
    """W1-W4 with their example arguments (float64 everywhere)."""
    rng = np.random.default_rng(seed)
    batch, width = 256, 512
    mlp_args = (rng.standard_normal((width, width)) / math.sqrt(width),
                rng.standard_normal((width, width)) / math.sqrt(width),
                rng.standard_normal((batch, width)),
                rng.standard_normal((batch, width)))
    return {
        "W1": Workload("W1", f"scalar loop ({W1_STEPS} steps of y = y * x + math.sin(y))",
                       {"math": scalar_loop, "numpy": scalar_loop_np},
                       (0.5, W1_STEPS), wrt=(0,), static=(1,), scalar=True),
        "W2": Workload("W2", "small-array chain (size 16, 35 elementwise ops, summed)",
                       {"numpy": small_chain}, (np.linspace(-1.0, 1.0, 16),), wrt=(0,)),
        "W3": Workload("W3", "MLP loss, batch 256, 512x512 weights, float64, d/dW1 and d/dW2",
                       {"numpy": mlp_loss}, mlp_args, wrt=(0, 1)),
        "W4": Workload("W4", "Newton while loop for x = cos(a * x), dx/da at a = 5",
                       {"math": newton_fixed_point, "numpy": newton_fixed_point_np},
                       (5.0,), wrt=(0,), scalar=True),
    }


def hessian_point(size: int = 50, seed: int = 1) -> np.ndarray:
    """The 50 parameters at which the Hessian workload is evaluated."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size)
