"""Hand-written gradients of the workloads: the 1.0 baseline every ratio is measured against.

Each baseline is the best derivative a careful person writes with plain floats and NumPy.
For a function of one float (W1, W4) that is the forward tangent carried through the loop
beside the value (``*_tangent``: no stored trajectory, one pass); for the array workloads
it is the reverse pass (a forward pass keeping exactly what the reverse pass reads, then
the reverse pass). The reverse sweeps over a stored trajectory of W1 and W4 (``*_grad``)
are reported beside them (``REVERSE_SWEEPS``) and measure the memory workload. Every other
system's gradient is checked against the baseline before it is timed. No imports beyond
numpy and math (the tangent subprocess runs them too).
"""

from __future__ import annotations

import math

import numpy as np


def scalar_loop_grad(x: float, steps: int) -> float:
    """d/dx of ``scalar_loop``: a reverse sweep over the stored trajectory of ``y``."""
    trajectory = []
    y = x
    for _ in range(steps):
        trajectory.append(y)
        y = y * x + math.sin(y)
    dy = 1.0
    dx = 0.0
    for y in reversed(trajectory):
        dx += dy * y
        dy = dy * (x + math.cos(y))
    return dx + dy  # y starts as x


def scalar_loop_tangent(x: float, steps: int) -> float:
    """d/dx of ``scalar_loop``: the tangent ``dy`` of ``y`` carried through the loop."""
    y, dy = x, 1.0
    for _ in range(steps):
        # y' = y * x + sin(y)  ->  dy' = dy * x + y + cos(y) * dy
        y, dy = y * x + math.sin(y), dy * (x + math.cos(y)) + y
    return dy


def small_chain_grad(x: np.ndarray) -> np.ndarray:
    """d/dx of ``small_chain`` by the chain rule, one line per primal line in reverse."""
    s = np.sin(x)
    h1 = s * x + 1.0
    e1 = np.exp(-h1 * 0.5)
    h2 = e1 * h1
    t1 = np.tanh(h2 - x)
    h3 = t1 + h2 * h2
    q = np.sqrt(h3 * h3 + 1.0)
    h4 = q / h1
    c4 = np.cos(h4)
    h5 = c4 * h3 - h4 / 3.0
    h6 = np.log1p(h5 * h5) + x * h4
    u = h6 + h2
    su = np.sin(u)
    ex = np.exp(-x * x)
    h7 = su * ex
    t5 = np.tanh(h5)
    h8 = h7 * h6 - t5 * 0.5

    g8 = 2.0 * h8
    g7 = g8 * h6
    g6 = g8 * h7
    g5 = -0.5 * g8 * (1.0 - t5 * t5)
    gx = g7 * su * ex * (-2.0 * x)
    gu = g7 * ex * np.cos(u)
    g6 = g6 + gu
    g2 = gu
    g5 = g5 + g6 * 2.0 * h5 / (1.0 + h5 * h5)
    gx = gx + g6 * h4
    g4 = g6 * x - g5 * np.sin(h4) * h3 - g5 / 3.0
    g3 = g5 * c4
    g1 = -g4 * q / (h1 * h1)
    g3 = g3 + (g4 / h1) * h3 / q
    gt = g3 * (1.0 - t1 * t1)
    g2 = g2 + g3 * 2.0 * h2 + gt
    gx = gx - gt
    g1 = g1 + g2 * e1 * (1.0 - 0.5 * h1)
    return gx + g1 * (np.cos(x) * x + s)


def mlp_loss_grad(W1: np.ndarray, W2: np.ndarray, x: np.ndarray,
                  y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d/dW1, d/dW2) of ``mlp_loss``: textbook backpropagation."""
    a = np.tanh(x @ W1)
    r = a @ W2 - y
    dr = r * (2.0 / r.size)
    dW2 = a.T @ dr
    dz = (dr @ W2.T) * (1.0 - a * a)
    return x.T @ dz, dW2


def newton_fixed_point_grad(a: float) -> float:
    """dx/da of ``newton_fixed_point``: reverse through the iterations with a stack of x."""
    stack = []
    x = 1.0
    delta = 1.0
    steps = 0
    while abs(delta) >= 1e-10 and steps < 50:
        stack.append(x)
        fx = x - math.cos(a * x)
        dfx = 1.0 + a * math.sin(a * x)
        delta = fx / dfx
        x = x - delta
        steps += 1
    dx = 1.0
    da = 0.0
    while stack:
        x = stack.pop()
        s = math.sin(a * x)
        c = math.cos(a * x)
        fx = x - c
        dfx = 1.0 + a * s
        # x_next = x - fx / dfx
        ddelta_dx = (1.0 + a * s) / dfx - fx * (a * a * c) / (dfx * dfx)
        ddelta_da = (x * s) / dfx - fx * (s + a * x * c) / (dfx * dfx)
        da -= dx * ddelta_da
        dx = dx * (1.0 - ddelta_dx)
    return da


def newton_fixed_point_tangent(a: float) -> float:
    """dx/da of ``newton_fixed_point``: the tangent of every Newton variable carried along."""
    x, dx = 1.0, 0.0
    delta = 1.0
    steps = 0
    while abs(delta) >= 1e-10 and steps < 50:
        s = math.sin(a * x)
        c = math.cos(a * x)
        d_ax = x + a * dx  # tangent of a * x
        fx, dfx_ = x - c, dx + s * d_ax
        dfx, ddfx = 1.0 + a * s, s + a * c * d_ax  # d(a)/da = 1
        delta = fx / dfx
        ddelta = (dfx_ - delta * ddfx) / dfx
        x, dx = x - delta, dx - ddelta
        steps += 1
    return dx


def chain_energy_grad(p: np.ndarray) -> np.ndarray:
    """Gradient of ``chain_energy`` (used to check the Hessians' point is right)."""
    u, v = p[:-1], p[1:]
    d = v - u
    g = np.zeros_like(p)
    g[:-1] += np.cos(u) * d * d - 2.0 * np.sin(u) * d
    g[1:] += 2.0 * np.sin(u) * d
    return g


def chain_energy_hessian(p: np.ndarray) -> np.ndarray:
    """The tridiagonal Hessian of ``chain_energy``: each term sin(u) (v - u)^2 couples a
    neighbour pair (u, v) = (p[i], p[i + 1])."""
    u, v = p[:-1], p[1:]
    d = v - u
    s, c = np.sin(u), np.cos(u)
    n = p.size
    hessian = np.zeros((n, n))
    index = np.arange(n - 1)
    np.add.at(hessian, (index, index), -s * d * d - 4.0 * c * d + 2.0 * s)
    np.add.at(hessian, (index + 1, index + 1), 2.0 * s)
    off_diagonal = 2.0 * c * d - 2.0 * s
    hessian[index, index + 1] = off_diagonal
    hessian[index + 1, index] = off_diagonal
    return hessian


GRADIENTS = {  # the baselines
    "W1": scalar_loop_tangent,
    "W2": small_chain_grad,
    "W3": mlp_loss_grad,
    "W4": newton_fixed_point_tangent,
}
# Reverse sweeps over a stored trajectory, reported beside the baseline (for W2 and W3 the
# baseline is itself the reverse sweep)
REVERSE_SWEEPS = {
    "W1": scalar_loop_grad,
    "W2": small_chain_grad,
    "W3": mlp_loss_grad,
    "W4": newton_fixed_point_grad,
}
