"""Random short programs run in srcgrad and in PyTorch: value, gradient, second order.

Each seed draws a chain of operations (elementwise, binary, views, in-place writes into
views and through masks, reductions) over float64 inputs, then compares the output, the
first-order gradients and the gradient of ``sum(grad ** 2)`` (second order through
``create_graph``). Errors must agree in type. Skips without torch.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

UNARY = ["sin", "cos", "exp", "tanh", "sigmoid", "relu", "abs", "square", "neg"]
BINARY = ["+", "-", "*", "/"]
OTHER = ["t_write", "view_mul", "mask_write", "repeat_index", "t", "flatten", "unsqueeze",
         "select", "slice", "expand", "permute", "softmax", "log_softmax", "clamp", "cat",
         "stack", "where", "pow2", "rpow", "clone", "casts", "setitem", "inplace_mul"]
REDUCE = [("sum", {}), ("mean", {}), ("sum", {"dim": 0}), ("mean", {"dim": -1, "keepdim": True}),
          ("max", {}), ("amax", {"dim": 0}), ("prod", {}), ("std", {}), ("var", {"dim": 0})]


def _apply(lib: Any, op: str, a: Any, b: Any) -> Any:
    if op in UNARY:
        return getattr(a, op)()
    if op in BINARY:
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / (b * b + 1)}[op]
    if op == "t_write":
        c = a * 1
        if c.ndim == 2:
            c.T[0] = b.reshape(-1)[0]
        return c
    if op == "view_mul":
        c = a * 1
        if c.ndim and c.shape[0] > 1:
            c[1:].mul_(b.reshape(-1)[0])
        return c
    if op == "mask_write":
        c = a * 1
        c[c > 0.5] = 0.25
        return c
    if op == "repeat_index":
        return a.reshape(-1)[lib.tensor([0, 0, -1])]
    if op == "t":
        return a.t() if a.ndim == 2 else a
    if op == "flatten":
        return a.flatten()
    if op == "unsqueeze":
        return a.unsqueeze(0)
    if op == "select":
        return a[0] if a.ndim and a.shape[0] else a
    if op == "slice":
        return a[1:] if a.ndim and a.shape[0] > 1 else a
    if op == "expand":
        return a.unsqueeze(0).expand(2, *a.shape)
    if op == "permute":
        return a.permute(*reversed(range(a.ndim))) if a.ndim else a
    if op == "softmax":
        return a.softmax(-1) if a.ndim else a
    if op == "log_softmax":
        return a.log_softmax(0) if a.ndim else a
    if op == "clamp":
        return a.clamp(-0.5, 0.7)
    if op == "cat":
        return lib.cat([a.reshape(-1), b.reshape(-1)])
    if op == "stack":
        return lib.stack([a, a * 2])
    if op == "where":
        return lib.where(a > 0, a, a * 0.5)
    if op == "pow2":
        return a ** 2
    if op == "rpow":
        return 1.5 ** a
    if op == "clone":
        return a.clone()
    if op == "casts":
        return a.float().double()
    if op == "setitem":
        c = a * 1
        if c.ndim and c.shape[0]:
            c[0] = b.reshape(-1)[0] * 2
        return c
    if op == "inplace_mul":
        c = a * 1
        c.mul_(1.5)
        return c
    raise ValueError(op)


def _run(lib: Any, seed: int) -> Any:
    rng = random.Random(seed)
    shape = [(3,), (2, 3), (4,), ()][seed % 4]
    x = lib.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)
    y = lib.tensor(np.random.default_rng(seed + 1).standard_normal(shape), requires_grad=True)
    a = x
    for _ in range(rng.randint(2, 6)):
        kind = rng.random()
        pool = UNARY if kind < 0.35 else BINARY if kind < 0.6 else OTHER
        op = rng.choice(pool)
        a = _apply(lib, op, a, y if y.shape == a.shape else y.sum())
    name, kwargs = REDUCE[rng.randrange(len(REDUCE))]
    if name in ("std", "var") and (a.ndim == 0 or a.shape[0] < 2):
        name, kwargs = "sum", {}
    out = getattr(a, name)(**kwargs) if a.ndim else getattr(a, name)()
    s = out.sum()
    try:
        gx, gy = lib.autograd.grad(s, [x, y], allow_unused=True, create_graph=True)
    except RuntimeError as e:
        return ["error", type(e).__name__]
    results = [s.detach().double().numpy() + 0]
    for g in (gx, gy):
        results.append(None if g is None else g.detach().double().numpy() + 0)
    if gx is not None and gx.requires_grad:
        (h,) = lib.autograd.grad((gx * gx).sum(), [x], allow_unused=True)
        results.append(None if h is None else (h.detach().double() + 0).numpy())
    return results


def _same(ours: Any, theirs: Any) -> bool:
    if ours is None or theirs is None:  # PyTorch and srcgrad may differ on None vs zeros
        other = theirs if ours is None else ours
        return other is None or not np.any(other)
    return np.allclose(ours, theirs, rtol=1e-6, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("seed", range(300))
def test_random_program_matches_torch(seed: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _run(sg, seed), _run(torch, seed)
    if "error" in (ours[0], theirs[0]):
        assert ours == theirs
        return
    ours += [None] * (4 - len(ours))
    theirs += [None] * (4 - len(theirs))
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert _same(a, b), f"result {k}: {a} != {b}"
