"""Live parity with torch.optim, when torch is installed: every case in float32 and
float64, and longer random runs with all options at once."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg

from .reference import CASES, run

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("double", [False, True], ids=["float32", "float64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_case_matches_torch(case, double):
    ours = run(sg, case, sg.float64 if double else sg.float32)
    theirs = run(torch, case, torch.float64 if double else torch.float32)
    tolerance = {"rtol": 1e-12, "atol": 1e-14} if double else {"rtol": 2e-6, "atol": 2e-7}
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], **tolerance, err_msg=key)


def _train(lib, name, options, start, targets):
    w = lib.tensor(start, requires_grad=True)
    optimizer = getattr(lib.optim, name)([w], **options)
    for target in targets:
        optimizer.zero_grad()
        ((w - lib.tensor(target)) ** 2 * lib.tensor(np.linspace(0.1, 3.0, w.numel())
                                                    ).reshape(w.shape)).sum().backward()
        optimizer.step()
    return w.detach().numpy()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name, options", [
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.2, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.7, "nesterov": True, "maximize": False}),
    ("Adam", {"lr": 0.02, "betas": (0.7, 0.95), "weight_decay": 0.03, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "eps": 1e-3}),
])
def test_random_runs_match_torch(name, options, seed):
    rng = np.random.default_rng(seed)
    start = rng.normal(size=(3, 4))
    targets = [rng.normal(size=(3, 4)) for _ in range(25)]
    np.testing.assert_allclose(_train(sg, name, options, start, targets),
                               _train(torch, name, options, start, targets),
                               rtol=1e-10, atol=1e-12)
