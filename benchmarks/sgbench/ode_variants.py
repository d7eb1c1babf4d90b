"""ODE integrators written the several ways a person writes them (issue 16's RK4 row).

The RK4 row of ``benchmarks/programs.py`` times one program (a damped pendulum, 100 steps);
the hidden harness times its own. These are the other versions a user writes: Lorenz,
a pendulum with ``np.sin``, Lotka-Volterra with four parameters; the state rebuilt with
``np.array([...])`` per step or a vector updated in place of the old; explicit Euler; the
dynamics returning a tuple or an array; the loss on the final state or on the whole
trajectory. ``benchmarks/variants.py`` times each gradient against its forward pass.
Like :mod:`.workloads`, nothing here imports srcgrad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

DT = 0.01


def lorenz(y, p):
    """Lorenz dynamics as an array; ``p`` = (sigma, rho, beta)."""
    return np.array([p[0] * (y[1] - y[0]),
                     y[0] * (p[1] - y[2]) - y[1],
                     y[0] * y[1] - p[2] * y[2]])


def lorenz_rk4_final(p, y0, steps):
    """RK4 with a vector state, loss on the final state."""
    y = y0
    for _ in range(steps):
        k1 = lorenz(y, p)
        k2 = lorenz(y + DT / 2 * k1, p)
        k3 = lorenz(y + DT / 2 * k2, p)
        k4 = lorenz(y + DT * k3, p)
        y = y + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y ** 2)


def lorenz_rk4_trajectory(p, y0, steps):
    """RK4 with a vector state, loss a sum of squares along the trajectory."""
    y = y0
    loss = 0.0
    for _ in range(steps):
        k1 = lorenz(y, p)
        k2 = lorenz(y + 0.5 * DT * k1, p)
        k3 = lorenz(y + 0.5 * DT * k2, p)
        k4 = lorenz(y + DT * k3, p)
        y = y + DT / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        loss = loss + np.sum(y * y)
    return loss


def pendulum_tuple(a, w, g, c):
    """Pendulum dynamics on two floats, returned as a tuple."""
    return w, -g * np.sin(a) - c * w


def pendulum_rk4_scalars(theta, s0, steps):
    """RK4 on a state held as two floats, rebuilt as ``np.array([...])`` once per step."""
    g, c = theta[0], theta[1]
    s = s0
    h = 0.05
    for _ in range(steps):
        a, w = s[0], s[1]
        a1, w1 = pendulum_tuple(a, w, g, c)
        a2, w2 = pendulum_tuple(a + 0.5 * h * a1, w + 0.5 * h * w1, g, c)
        a3, w3 = pendulum_tuple(a + 0.5 * h * a2, w + 0.5 * h * w2, g, c)
        a4, w4 = pendulum_tuple(a + h * a3, w + h * w3, g, c)
        s = np.array([a + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4),
                      w + h / 6 * (w1 + 2 * w2 + 2 * w3 + w4)])
    return s[0] ** 2 + s[1] ** 2


def lotka_volterra(y, p):
    """Predator-prey dynamics; ``p`` = (alpha, beta, delta, gamma)."""
    prey, pred = y[0], y[1]
    return np.array([p[0] * prey - p[1] * prey * pred,
                     p[2] * prey * pred - p[3] * pred])


def lotka_rk4_trajectory(p, y0, steps):
    """RK4 with four parameters, loss a sum of squares along the trajectory."""
    y = y0
    h = DT
    total = 0.0
    for _ in range(steps):
        k1 = lotka_volterra(y, p)
        k2 = lotka_volterra(y + h / 2 * k1, p)
        k3 = lotka_volterra(y + h / 2 * k2, p)
        k4 = lotka_volterra(y + h * k3, p)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        total = total + np.sum(y ** 2)
    return total


def lorenz_euler(p, y0, steps):
    """Explicit Euler, loss on the final state."""
    y = y0
    for _ in range(steps):
        y = y + DT * lorenz(y, p)
    return np.sum(y * y)


def pendulum_euler_tuple(theta, s0, steps):
    """Explicit Euler on two floats from a tuple-returning dynamics, trajectory loss."""
    a, w = s0[0], s0[1]
    loss = 0.0
    for _ in range(steps):
        da, dw = pendulum_tuple(a, w, theta[0], theta[1])
        a, w = a + 0.05 * da, w + 0.05 * dw
        loss = loss + a * a + w * w
    return loss


Variant = tuple[str, Callable[..., Any], tuple[Any, ...]]


def variants(steps_list: tuple[int, ...] = (50, 200, 500)) -> list[Variant]:
    """(label, function, arguments): the gradient is taken in the first argument."""
    out: list[Variant] = []
    lorenz_p, lorenz_y0 = np.array([10.0, 28.0, 8.0 / 3.0]), np.array([1.0, 1.0, 1.0])
    pend_p, pend_y0 = np.array([4.0, 0.3]), np.array([1.0, 0.0])
    lv_p, lv_y0 = np.array([1.1, 0.4, 0.1, 0.4]), np.array([10.0, 5.0])
    for steps in steps_list:
        out += [
            (f"lorenz rk4 final, {steps}", lorenz_rk4_final, (lorenz_p, lorenz_y0, steps)),
            (f"lorenz rk4 trajectory, {steps}", lorenz_rk4_trajectory,
             (lorenz_p, lorenz_y0, steps)),
            (f"pendulum rk4 scalars+tuple, {steps}", pendulum_rk4_scalars,
             (pend_p, pend_y0, steps)),
            (f"lotka-volterra rk4 trajectory, {steps}", lotka_rk4_trajectory,
             (lv_p, lv_y0, steps)),
            (f"lorenz euler final, {steps}", lorenz_euler, (lorenz_p, lorenz_y0, steps)),
            (f"pendulum euler tuple, {steps}", pendulum_euler_tuple,
             (pend_p, pend_y0, steps)),
        ]
    return out
