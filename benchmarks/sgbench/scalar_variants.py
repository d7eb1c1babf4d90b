"""Other versions of the scalar workloads W1 and W4, each beside its best hand-written derivative.

W1 and W4 in :mod:`sgbench.workloads` are one loop each; a user's own loop of one float uses
other functions (``math.exp``, ``math.tanh``, divisions, ``** 2``), carries two floats, runs
50 or 1000 steps, or starts from an ``np.float64``. These versions keep srcgrad honest on
the mechanism (forward tangents, re-nesting, folding, the dispatcher's per-call path) rather
than on one program. Each ``VARIANTS`` entry is ``(name, function, hand-written tangent,
arguments)``: the derivative is d/d(first argument), the hand-written one carries the
forward tangent beside the value as a person would write it. Run by
``benchmarks/scalar_variants.py``. No imports beyond numpy and math.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

# --- W1-like: loops of one float -------------------------------------------------------

def loop_sin(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y)
    return y


def loop_sin_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        y, dy = y * x + math.sin(y), dy * (x + math.cos(y)) + y
    return dy


def loop_exp(x, steps):
    y = x
    for _ in range(steps):
        y = 0.5 * y + math.exp(-x * y)
    return y


def loop_exp_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        e = math.exp(-x * y)
        y, dy = 0.5 * y + e, 0.5 * dy - e * (y + x * dy)
    return dy


def loop_cos(x, steps):
    y = 0.0
    for _ in range(steps):
        y = math.cos(y) * x
    return y


def loop_cos_tangent(x, steps):
    y, dy = 0.0, 0.0
    for _ in range(steps):
        c = math.cos(y)
        y, dy = c * x, c - math.sin(y) * dy * x
    return dy


def loop_tanh(x, steps):
    y = x
    for _ in range(steps):
        y = math.tanh(y * x + 0.1) + 0.5 * y
    return y


def loop_tanh_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        t = math.tanh(y * x + 0.1)
        y, dy = t + 0.5 * y, (1.0 - t * t) * (dy * x + y) + 0.5 * dy
    return dy


def loop_div(x, steps):
    y = 1.0
    for _ in range(steps):
        y = (y + x / y) / 2.0
    return y


def loop_div_tangent(x, steps):
    y, dy = 1.0, 0.0
    for _ in range(steps):
        y, dy = (y + x / y) * 0.5, (dy + (1.0 - x * dy / y) / y) * 0.5
    return dy


def loop_square(x, steps):
    y = 0.0
    for _ in range(steps):
        y = x - 0.3 * y ** 2
    return y


def loop_square_tangent(x, steps):
    y, dy = 0.0, 0.0
    for _ in range(steps):
        y, dy = x - 0.3 * y * y, 1.0 - 0.6 * y * dy
    return dy


def loop_two(x, steps):
    q = x
    p = 0.0
    for _ in range(steps):
        p = p - 0.01 * math.sin(q)
        q = q + 0.01 * p
    return q * p


def loop_two_tangent(x, steps):
    q, dq, p, dp = x, 1.0, 0.0, 0.0
    for _ in range(steps):
        p, dp = p - 0.01 * math.sin(q), dp - 0.01 * math.cos(q) * dq
        q, dq = q + 0.01 * p, dq + 0.01 * dp
    return dq * p + q * dp


def loop_mixed(x, steps):
    y = x
    for _ in range(steps):
        y = y * x + math.sin(y) / (1.0 + y * y)
    return y


def loop_mixed_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        d = 1.0 + y * y
        s = math.sin(y)
        y, dy = y * x + s / d, dy * x + y + (math.cos(y) * dy - s * 2.0 * y * dy / d) / d
    return dy


# --- W4-like: while loops ----------------------------------------------------------------

def newton_sqrt(a):
    y = a
    delta = 1.0
    while abs(delta) > 1e-12:
        delta = (y * y - a) / (2.0 * y)
        y = y - delta
    return y


def newton_sqrt_tangent(a):
    y, dy = a, 1.0
    delta = 1.0
    while abs(delta) > 1e-12:
        d = 2.0 * y
        delta = (y * y - a) / d
        ddelta = (2.0 * y * dy - 1.0 - delta * 2.0 * dy) / d
        y, dy = y - delta, dy - ddelta
    return dy


def newton_lambert(a):
    w = 1.0
    steps = 0
    while steps < 100:
        e = math.exp(w)
        f = w * e - a
        step = f / (e * (w + 1.0))
        w = w - step
        steps += 1
        if abs(step) < 1e-12:
            break
    return w


def newton_lambert_tangent(a):
    w, dw = 1.0, 0.0
    steps = 0
    while steps < 100:
        e = math.exp(w)
        de = e * dw
        f, df = w * e - a, dw * e + w * de - 1.0
        g = e * (w + 1.0)
        dg = de * (w + 1.0) + e * dw
        step = f / g
        dstep = (df - step * dg) / g
        w, dw = w - step, dw - dstep
        steps += 1
        if abs(step) < 1e-12:
            break
    return dw


def fixed_point_cos(a):
    x = 0.5
    change = 1.0
    count = 0
    while change > 1e-10 and count < 200:
        new = math.cos(a * x)
        change = abs(new - x)
        x = new
        count = count + 1
    return x


def fixed_point_cos_tangent(a):
    x, dx = 0.5, 0.0
    change = 1.0
    count = 0
    while change > 1e-10 and count < 200:
        new = math.cos(a * x)
        dnew = -math.sin(a * x) * (x + a * dx)
        change = abs(new - x)
        x, dx = new, dnew
        count += 1
    return dx


def secant_cubic(a):
    lo = 0.0
    hi = 2.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - a > 0.0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    for _ in range(3):
        x = x - (x * x * x - a) / (3.0 * x * x)
    return x


def secant_cubic_tangent(a):
    lo, hi = 0.0, 2.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - a > 0.0:
            hi = mid
        else:
            lo = mid
    x, dx = 0.5 * (lo + hi), 0.0
    for _ in range(3):
        d = 3.0 * x * x
        f = x * x * x - a
        dx = dx - ((d * dx - 1.0) - f * 6.0 * x * dx / d) / d
        x = x - f / d
    return dx


# --- more W1-like bodies: powers, log, abs, min/max ------------------------------------

def loop_cube(x, steps):
    y = 0.0
    for _ in range(steps):
        y = x - 0.1 * y ** 3
    return y


def loop_cube_tangent(x, steps):
    # (the value as the user wrote it: ``y ** 3`` is not always ``y * y * y`` to the bit)
    y, dy = 0.0, 0.0
    for _ in range(steps):
        y, dy = x - 0.1 * y ** 3, 1.0 - 0.3 * y * y * dy
    return dy


def loop_square_as_written(x, steps):
    y = 0.0
    for _ in range(steps):
        y = x - 0.3 * y ** 2
    return y


def loop_square_as_written_tangent(x, steps):
    # the value as the user wrote it (``y ** 2`` raises OverflowError where ``y * y`` is
    # inf): the baseline for a derivative that keeps the user's arithmetic
    y, dy = 0.0, 0.0
    for _ in range(steps):
        y, dy = x - 0.3 * y ** 2, 1.0 - 0.6 * y * dy
    return dy


def loop_root(x, steps):
    y = 1.0
    for _ in range(steps):
        y = (y + x) ** 0.5
    return y


def loop_root_tangent(x, steps):
    y, dy = 1.0, 0.0
    for _ in range(steps):
        y = (y + x) ** 0.5
        dy = (dy + 1.0) * 0.5 / y
    return dy


def loop_log(x, steps):
    y = x
    for _ in range(steps):
        y = math.log(2.0 + x * y) - 0.2 * y
    return y


def loop_log_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        u = 2.0 + x * y
        y, dy = math.log(u) - 0.2 * y, (y + x * dy) / u - 0.2 * dy
    return dy


def loop_abs(x, steps):
    y = x
    for _ in range(steps):
        y = x * math.cos(y) - 0.5 * abs(y)
    return y


def loop_abs_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        s = 1.0 if y > 0 else -1.0 if y < 0 else 0.0
        y, dy = x * math.cos(y) - 0.5 * abs(y), math.cos(y) - x * math.sin(y) * dy - 0.5 * s * dy
    return dy


def loop_clamp(x, steps):
    y = x
    for _ in range(steps):
        y = min(max(x * y + 0.3, -1.0), 0.9) * 0.8 + 0.1 * math.sin(y)
    return y


def loop_clamp_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        z = x * y + 0.3
        dz = y + x * dy
        if z < -1.0 or z > 0.9:
            z, dz = (-1.0 if z < -1.0 else 0.9), 0.0
        y, dy = z * 0.8 + 0.1 * math.sin(y), 0.8 * dz + 0.1 * math.cos(y) * dy
    return dy


def loop_pendulum(x, steps):
    theta = x
    omega = 0.0
    for _ in range(steps):
        omega = omega - 0.05 * math.sin(theta) - 0.01 * omega
        theta = theta + 0.05 * omega
    return theta


def loop_pendulum_tangent(x, steps):
    theta, dtheta, omega, domega = x, 1.0, 0.0, 0.0
    for _ in range(steps):
        omega, domega = (omega - 0.05 * math.sin(theta) - 0.01 * omega,
                         0.99 * domega - 0.05 * math.cos(theta) * dtheta)
        theta, dtheta = theta + 0.05 * omega, dtheta + 0.05 * domega
    return dtheta


def loop_logistic(x, steps):
    y = 0.3
    for _ in range(steps):
        y = x * y * (1.0 - y) / (1.0 + 0.1 * y)
    return y


def loop_logistic_tangent(x, steps):
    y, dy = 0.3, 0.0
    for _ in range(steps):
        n = x * y * (1.0 - y)
        dn = y * (1.0 - y) + x * (1.0 - 2.0 * y) * dy
        d = 1.0 + 0.1 * y
        q = n / d
        y, dy = q, (dn - q * 0.1 * dy) / d
    return dy


# --- more W4-like while loops ------------------------------------------------------------

def newton_log(a):
    y = 1.0
    while True:
        e = math.exp(y)
        step = (e - a) / e
        y = y - step
        if abs(step) < 1e-13:
            break
    return y


def newton_log_tangent(a):
    y, dy = 1.0, 0.0
    while True:
        e = math.exp(y)
        step = (e - a) / e
        # step = 1 - a / e: d step = (a * dy - 1) / e
        dstep = (a * dy - 1.0) / e
        y, dy = y - step, dy - dstep
        if abs(step) < 1e-13:
            break
    return dy


def newton_cube_root(a):
    x = a
    count = 0
    while count < 50:
        nxt = (2.0 * x + a / (x * x)) / 3.0
        if abs(nxt - x) <= 1e-14 * abs(x):
            x = nxt
            break
        x = nxt
        count += 1
    return x


def newton_cube_root_tangent(a):
    x, dx = a, 1.0
    count = 0
    while count < 50:
        xx = x * x
        q = a / xx
        nxt = (2.0 * x + q) / 3.0
        dnxt = (2.0 * dx + (1.0 - 2.0 * q * x * dx) / xx) / 3.0
        if abs(nxt - x) <= 1e-14 * abs(x):
            x, dx = nxt, dnxt
            break
        x, dx = nxt, dnxt
        count += 1
    return dx


def halley_kepler(m):
    e = 0.3
    big = m
    delta = 1.0
    while abs(delta) > 1e-13:
        f = big - e * math.sin(big) - m
        fp = 1.0 - e * math.cos(big)
        delta = f / fp
        big = big - delta
    return big


def halley_kepler_tangent(m):
    e = 0.3
    big, dbig = m, 1.0
    delta = 1.0
    while abs(delta) > 1e-13:
        s, c = math.sin(big), math.cos(big)
        f = big - e * s - m
        fp = 1.0 - e * c
        df = (1.0 - e * c) * dbig - 1.0
        dfp = e * s * dbig
        delta = f / fp
        ddelta = (df - delta * dfp) / fp
        big, dbig = big - delta, dbig - ddelta
    return dbig


Variant = tuple[str, Callable[..., Any], Callable[..., Any], tuple[Any, ...]]


def variants() -> list[Variant]:
    """Every version with its arguments (W1-like then W4-like)."""
    out: list[Variant] = []
    for steps in (50, 200, 1000):
        out.append((f"sin/{steps}", loop_sin, loop_sin_tangent, (0.5, steps)))
    out += [
        ("sin/np.float64", loop_sin, loop_sin_tangent, (np.float64(0.5), 200)),
        ("exp/200", loop_exp, loop_exp_tangent, (0.7, 200)),
        ("cos/200", loop_cos, loop_cos_tangent, (0.8, 200)),
        ("tanh/200", loop_tanh, loop_tanh_tangent, (0.6, 200)),
        ("div/50", loop_div, loop_div_tangent, (2.0, 50)),
        ("square/200", loop_square, loop_square_tangent, (0.9, 200)),
        ("two floats/200", loop_two, loop_two_tangent, (0.4, 200)),
        ("two floats/1000", loop_two, loop_two_tangent, (0.4, 1000)),
        ("mixed/200", loop_mixed, loop_mixed_tangent, (0.5, 200)),
        ("newton sqrt", newton_sqrt, newton_sqrt_tangent, (7.0,)),
        ("newton lambert", newton_lambert, newton_lambert_tangent, (3.0,)),
        ("fixed point cos", fixed_point_cos, fixed_point_cos_tangent, (0.7,)),
        ("bisect+newton cube", secant_cubic, secant_cubic_tangent, (3.0,)),
        ("cube/200", loop_cube, loop_cube_tangent, (0.7, 200)),
        ("square as written/200", loop_square_as_written, loop_square_as_written_tangent,
         (0.9, 200)),
        ("root/100", loop_root, loop_root_tangent, (2.0, 100)),
        ("log/200", loop_log, loop_log_tangent, (0.3, 200)),
        ("abs/200", loop_abs, loop_abs_tangent, (0.8, 200)),
        ("min max/200", loop_clamp, loop_clamp_tangent, (0.6, 200)),
        ("pendulum/500", loop_pendulum, loop_pendulum_tangent, (0.5, 500)),
        ("logistic/np.float64", loop_logistic, loop_logistic_tangent, (np.float64(2.9), 200)),
        ("div/1000", loop_div, loop_div_tangent, (2.0, 1000)),
        ("newton log", newton_log, newton_log_tangent, (5.0,)),
        ("newton cube root", newton_cube_root, newton_cube_root_tangent, (10.0,)),
        ("kepler", halley_kepler, halley_kepler_tangent, (1.2,)),
    ]
    return out
