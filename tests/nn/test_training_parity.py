"""A PyTorch-style training loop (``nn.Linear``, ``F.cross_entropy``, ``optim.Adam``) gives
PyTorch's loss curve to 1e-6 in float64 from the same initial weights (skips without torch)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")


def _train(lib, weights, X, y, steps=60):
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).double()
    model.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
    optimizer = lib.optim.Adam(model.parameters(), lr=0.05)
    xs, ys = lib.tensor(X), lib.tensor(y)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xs), ys)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses), {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def test_training_loop_with_linear_cross_entropy_and_adam_matches_torch_loss_curve():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 4))
    y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5).astype(np.int64)
    torch.manual_seed(0)
    start = {k: v.detach().double().numpy().copy() for k, v in torch.nn.Sequential(
        torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3)).state_dict().items()}
    ours, our_weights = _train(sg, start, X, y)
    theirs, their_weights = _train(torch, start, X, y)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)
    assert ours[-1] < 0.5 * ours[0]  # it learns
    for k in their_weights:
        np.testing.assert_allclose(our_weights[k], their_weights[k], rtol=1e-6, atol=1e-6)
