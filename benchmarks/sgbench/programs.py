"""The real programs of issue 16 and their hand-written derivatives.

Each program is written as a user writes it (srcgrad reads this very source); beside it
is the derivative a person would write by hand, which ``benchmarks/programs.py`` uses to
check srcgrad's gradient before timing it and, for the small MLP, as the 1.0 baseline.
Like :mod:`.workloads`, nothing here imports srcgrad.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# --- small MLP, softmax cross-entropy, batch 150, 2-16-3 ----------------------------------


def mlp_xent(W1, b1, W2, b2, x, y):
    """Mean softmax cross-entropy of a 2-16-3 tanh network; ``y`` is one-hot."""
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - np.sum(z * y, axis=1))


def mlp_xent_grad(W1, b1, W2, b2, x, y):
    """By hand: the max shift's adjoint is zero by algebra (softmax is shift-invariant),
    so it is dropped, as a person would."""
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    dz = (e / np.sum(e, axis=1, keepdims=True) - y) / x.shape[0]
    dW2 = h.T @ dz
    db2 = dz.sum(axis=0)
    da = (dz @ W2.T) * (1.0 - h * h)
    return x.T @ da, da.sum(axis=0), dW2, db2


def mlp_point(seed: int = 0, batch: int = 150) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 2))
    y = np.eye(3)[rng.integers(0, 3, batch)]
    return (rng.standard_normal((2, 16)) * 0.5, rng.standard_normal(16) * 0.1,
            rng.standard_normal((16, 3)) * 0.5, rng.standard_normal(3) * 0.1, x, y)


# --- RK4, 100 steps of a 2-state ODE (damped pendulum) ------------------------------------

RK4_STEPS = 100
RK4_DT = 0.05


def pendulum(s, theta):
    """The dynamics, a user function: angle and angular velocity, damped."""
    return np.array([s[1], -theta[0] * np.sin(s[0]) - theta[1] * s[1]])


def rk4_loss(theta, s0, steps):
    s = s0
    h = RK4_DT
    for _ in range(steps):
        k1 = pendulum(s, theta)
        k2 = pendulum(s + 0.5 * h * k1, theta)
        k3 = pendulum(s + 0.5 * h * k2, theta)
        k4 = pendulum(s + h * k3, theta)
        s = s + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(s * s)


def _pendulum_sensitivity(s: np.ndarray, S: np.ndarray, theta: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """f(s) and d f / d theta along the state's sensitivity ``S = ds / dtheta`` (2x2)."""
    f = np.array([s[1], -theta[0] * np.sin(s[0]) - theta[1] * s[1]])
    df_ds = np.array([[0.0, 1.0], [-theta[0] * np.cos(s[0]), -theta[1]]])
    df_dtheta = np.array([[0.0, 0.0], [-np.sin(s[0]), -s[1]]])
    return f, df_ds @ S + df_dtheta


def rk4_loss_grad(theta, s0, steps):
    """By hand: the 2x2 sensitivity ds/dtheta carried forward through every stage."""
    s, S, h = s0, np.zeros((2, 2)), RK4_DT
    for _ in range(steps):
        k1, d1 = _pendulum_sensitivity(s, S, theta)
        k2, d2 = _pendulum_sensitivity(s + 0.5 * h * k1, S + 0.5 * h * d1, theta)
        k3, d3 = _pendulum_sensitivity(s + 0.5 * h * k2, S + 0.5 * h * d2, theta)
        k4, d4 = _pendulum_sensitivity(s + h * k3, S + h * d3, theta)
        s = s + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        S = S + h / 6.0 * (d1 + 2.0 * d2 + 2.0 * d3 + d4)
    return 2.0 * s @ S


def rk4_point() -> tuple[Any, ...]:
    return np.array([4.0, 0.3]), np.array([1.0, 0.0]), RK4_STEPS


# --- attention block (einsum, softmax) ----------------------------------------------------


def attention(Wq, Wk, Wv, x):
    """One softmax attention head over a batch of sequences, summed squares as the loss."""
    q = np.einsum('btd,de->bte', x, Wq)
    k = np.einsum('btd,de->bte', x, Wk)
    v = np.einsum('btd,de->bte', x, Wv)
    s = np.einsum('bqe,bke->bqk', q, k) / np.sqrt(q.shape[-1])
    s = s - np.max(s, axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / np.sum(p, axis=-1, keepdims=True)
    o = np.einsum('bqk,bke->bqe', p, v)
    return np.sum(o * o)


def attention_grad(Wq, Wk, Wv, x):
    """By hand, in einsum as the forward is written (reported for reference)."""
    scale = 1.0 / np.sqrt(Wq.shape[1])
    q = np.einsum('btd,de->bte', x, Wq)
    k = np.einsum('btd,de->bte', x, Wk)
    v = np.einsum('btd,de->bte', x, Wv)
    s = np.einsum('bqe,bke->bqk', q, k) * scale
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p = p / np.sum(p, axis=-1, keepdims=True)
    o = np.einsum('bqk,bke->bqe', p, v)
    do = 2.0 * o
    dp = np.einsum('bqe,bke->bqk', do, v)
    dv = np.einsum('bqk,bqe->bke', p, do)
    ds = p * (dp - np.sum(dp * p, axis=-1, keepdims=True)) * scale
    dq = np.einsum('bqk,bke->bqe', ds, k)
    dk = np.einsum('bqk,bqe->bke', ds, q)
    return (np.einsum('btd,bte->de', x, dq), np.einsum('btd,bte->de', x, dk),
            np.einsum('btd,bte->de', x, dv))


def attention_point(seed: int = 0, batch: int = 8, length: int = 32, width: int = 16
                    ) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(width)
    return (rng.standard_normal((width, width)) * scale,
            rng.standard_normal((width, width)) * scale,
            rng.standard_normal((width, width)) * scale,
            rng.standard_normal((batch, length, width)))


# --- the Hessian of chain_energy, looping over the elements as the function does ---------


def chain_energy_hessian_loop(p):
    """By hand, one neighbour pair per Python iteration, reading scalars as
    ``workloads.chain_energy`` does: each term sin(u) (v - u)^2 adds a 2x2 block."""
    n = len(p)
    hessian = np.zeros((n, n))
    for i in range(n - 1):
        u, v = p[i], p[i + 1]
        d = v - u
        s, c = np.sin(u), np.cos(u)
        hessian[i, i] += -s * d * d - 4.0 * c * d + 2.0 * s
        hessian[i + 1, i + 1] += 2.0 * s
        hessian[i, i + 1] = hessian[i + 1, i] = 2.0 * c * d - 2.0 * s
    return hessian
