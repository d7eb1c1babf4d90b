"""Hessians of loops over scalar elements, written the several ways a person writes them.

The Hessian row of ``benchmarks/programs.py`` times one function (``chain_energy``, 50
elements); the hidden harness times its own. These are other element formulas (a product
of neighbours, an exponential, Rosenbrock, a sine of a backward difference, a sum with a
parameter) and a vectorised function, each with the Hessian a person writes by hand: a
Python loop over the elements as the function loops (the row's baseline) and, where the
function is vectorised, the vectorised Hessian. ``benchmarks/variants.py`` times them.
Like :mod:`.workloads`, nothing here imports srcgrad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def neighbour_products(x):
    total = 0.0
    for i in range(len(x) - 1):
        total = total + x[i] * x[i + 1]
    return total


def neighbour_products_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i + 1] += 1.0
        h[i + 1, i] += 1.0
    return h


def exp_square(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += np.exp(x[i]) * x[i + 1] ** 2
    return s


def exp_square_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        e, b = np.exp(x[i]), x[i + 1]
        h[i, i] += e * b * b
        h[i, i + 1] += 2.0 * e * b
        h[i + 1, i] += 2.0 * e * b
        h[i + 1, i + 1] += 2.0 * e
    return h


def rosenbrock(x):
    f = 0.0
    for i in range(len(x) - 1):
        f = f + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return f


def rosenbrock_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        a, b = x[i], x[i + 1]
        h[i, i] += 1200.0 * a * a - 400.0 * b + 2.0
        h[i, i + 1] += -400.0 * a
        h[i + 1, i] += -400.0 * a
        h[i + 1, i + 1] += 200.0
    return h


def sine_differences(x):
    e = 0.0
    for i in range(1, len(x)):
        e = e + np.sin(x[i] - x[i - 1])
    return e


def sine_differences_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(1, n):
        s = np.sin(x[i] - x[i - 1])
        h[i, i] -= s
        h[i - 1, i - 1] -= s
        h[i, i - 1] += s
        h[i - 1, i] += s
    return h


def weighted_cubes(x, c):
    """A sum with a parameter (not differentiated)."""
    total = 0.0
    for i in range(len(x)):
        total = total + c * x[i] ** 3 + x[i] * x[(i + 1) % len(x)]
    return total


def weighted_cubes_hessian(x, c):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n):
        j = (i + 1) % n
        h[i, i] += 6.0 * c * x[i]
        h[i, j] += 1.0
        h[j, i] += 1.0
    return h


def chain_vectorised(x):
    d = x[1:] - x[:-1]
    return np.sum(np.sin(x[:-1]) * d * d)


def chain_vectorised_hessian(x):
    u, d = x[:-1], x[1:] - x[:-1]
    s, c = np.sin(u), np.cos(u)
    n = x.size
    main = np.zeros(n)
    main[:-1] += -s * d * d - 4.0 * c * d + 2.0 * s
    main[1:] += 2.0 * s
    off = 2.0 * c * d - 2.0 * s
    return np.diag(main) + np.diag(off, 1) + np.diag(off, -1)


def rosenbrock_vectorised(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rosenbrock_vectorised_hessian(x):
    a, b = x[:-1], x[1:]
    main = np.zeros(x.size)
    main[:-1] += 1200.0 * a * a - 400.0 * b + 2.0
    main[1:] += 200.0
    off = -400.0 * a
    return np.diag(main) + np.diag(off, 1) + np.diag(off, -1)


Variant = tuple[str, Callable[..., Any], Callable[..., Any], tuple[Any, ...]]


def variants(sizes: tuple[int, ...] = (20, 50, 100, 200)) -> list[Variant]:
    """(label, function, hand-written Hessian, arguments); the Hessian is in argument 0."""
    out: list[Variant] = []
    for n in sizes:
        x = np.linspace(-0.9, 1.1, n) + 0.05 * np.sin(np.arange(n))
        out += [
            (f"x[i]*x[i+1], {n}", neighbour_products, neighbour_products_hessian, (x,)),
            (f"exp(x[i])*x[i+1]**2, {n}", exp_square, exp_square_hessian, (x,)),
            (f"rosenbrock loop, {n}", rosenbrock, rosenbrock_hessian, (x,)),
            (f"sin(x[i]-x[i-1]), {n}", sine_differences, sine_differences_hessian, (x,)),
            (f"c*x[i]**3 + x[i]*x[i+1 mod n], {n}", weighted_cubes, weighted_cubes_hessian,
             (x, 0.7)),
            (f"chain vectorised, {n}", chain_vectorised, chain_vectorised_hessian, (x,)),
            (f"rosenbrock vectorised, {n}", rosenbrock_vectorised,
             rosenbrock_vectorised_hessian, (x,)),
        ]
    return out
