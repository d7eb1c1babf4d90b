"""The optimizer cases, written once and run on either library (srcgrad or torch).

``run(lib, name)`` builds the case's parameters with ``lib.tensor``, makes the optimizer
from ``lib.optim``, and returns every parameter's values after each step. The loss is
``sum(0.5 * p * p + sin(p))`` over all parameters, so gradients change from step to
step. ``python -m tests.optim.reference`` prints the expected values for
``test_optim.py`` from torch (the numbers there were made with torch 2.13.0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

STEPS = 4
START = {
    "w": [[0.5, -1.2, 2.0], [0.3, 0.0, -0.7]],
    "b": [0.1, -2.5],
}

# name -> (optimizer, its keyword arguments, parameter groups: a list of
#          (names of START entries, per-group options) or None for one plain list)
CASES: dict[str, tuple[str, dict[str, Any], list[tuple[list[str], dict[str, Any]]] | None]] = {
    "sgd": ("SGD", {"lr": 0.1}, None),
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}, None),
    "sgd_dampening_decay": ("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3,
                                    "weight_decay": 0.01}, None),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.05,
                             "nesterov": True}, None),
    "sgd_maximize": ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True}, None),
    "sgd_groups": ("SGD", {"lr": 0.1, "momentum": 0.9},
                   [(["w"], {}), (["b"], {"lr": 0.01, "momentum": 0.0})]),
    "adam": ("Adam", {"lr": 0.1}, None),
    "adam_betas_decay": ("Adam", {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-6,
                                  "weight_decay": 0.1}, None),
    "adam_amsgrad": ("Adam", {"lr": 0.1, "amsgrad": True}, None),
    "adam_maximize": ("Adam", {"lr": 0.01, "maximize": True}, None),
    "adam_groups": ("Adam", {"lr": 0.1},
                    [(["w"], {"betas": (0.5, 0.9)}), (["b"], {"lr": 0.3, "amsgrad": True})]),
}


def run(lib: Any, name: str, dtype: Any = None) -> dict[str, list[list[float]]]:
    """Each parameter's flattened values after each of ``STEPS`` steps of case ``name``."""
    optimizer_name, options, groups = CASES[name]
    dtype = dtype if dtype is not None else lib.float32
    params = {key: lib.tensor(np.array(values), dtype=dtype, requires_grad=True)
              for key, values in START.items()}
    if groups is None:
        spec: list[Any] = list(params.values())
    else:
        spec = [dict(extra, params=[params[k] for k in keys]) for keys, extra in groups]
    optimizer = getattr(lib.optim, optimizer_name)(spec, **options)
    history: dict[str, list[list[float]]] = {key: [] for key in params}
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = sum((0.5 * p * p + p.sin()).sum() for p in params.values())
        loss.backward()
        optimizer.step()
        for key, p in params.items():
            history[key].append([float(v) for v in p.detach().reshape(-1).tolist()])
    return history


if __name__ == "__main__":  # regenerate the expected numbers (needs torch)
    import torch

    print(f"# made with torch {torch.__version__}")
    print("EXPECTED = {")
    for case in CASES:
        print(f"    {case!r}: {{")
        for key, steps in run(torch, case).items():
            rows = ",\n            ".join(
                "[" + ", ".join(f"{v:.8g}" for v in row) + "]" for row in steps)
            print(f"        {key!r}: [\n            {rows}],")
        print("    },")
    print("}")
