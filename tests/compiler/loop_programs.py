"""Programs and checks the loop tests share, written once (``test_while_tests_once.py``,
``test_forward_loop_code.py``, ``test_pass_loops.py``, ``test_element_adjoints.py``,
``test_static_shapes.py``, ``test_pass_shapes_in_loops.py``, ``test_scalar_loop_code.py``,
``test_scalar_constants.py``, ``test_element_adjoints_carried.py``,
``test_invariant_carries.py`` import them).

``newton`` is the W4 workload (``benchmarks/sgbench/workloads.py``): a ``while`` loop with a
data-dependent trip count and a test of two operands. The checks compare srcgrad's
derivatives with central finite differences (``tests/fd.py``) in reverse mode, forward mode
and at second order; :func:`loop_lines` reads the code inside an emitted function's loops.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian


def newton(a):
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


def loop_lines(text: str) -> str:
    """The code inside loops (lines indented twice or more), comments left out."""
    return "\n".join(line for line in text.splitlines()
                     if line.startswith("        ") and not line.lstrip().startswith("#"))


def pendulum(a, w, g, c):
    return w, -g * np.sin(a) - c * w


def euler_on_two_floats(theta, s0, steps):
    """A pendulum stepped by explicit Euler on two floats read from an array, a loss
    joining a Python float and NumPy scalars: element reads of the parameters in a loop."""
    a, w = s0[0], s0[1]
    loss = 0.0
    for _ in range(steps):
        da, dw = pendulum(a, w, theta[0], theta[1])
        a, w = a + 0.05 * da, w + 0.05 * dw
        loss = loss + a * a + w * w
    return loss


def assert_gradients_match_differences(fn: Callable[..., Any], args: Sequence[Any],
                                       wrt: tuple[int, ...]) -> None:
    """``sg.grad(fn, wrt=wrt)`` against central differences, one argument at a time."""
    got = sg.grad(fn, wrt=wrt)(*args)
    got = got if isinstance(got, tuple) else (got,)
    for g, place in zip(got, wrt):
        np.testing.assert_allclose(g, numeric_gradient(fn, args, {}, place), rtol=1e-6,
                                   atol=1e-8)


def assert_forward_and_second_order_match_differences(fn: Callable[..., Any],
                                                      args: Sequence[Any],
                                                      tangent: np.ndarray) -> None:
    """``sg.jvp`` along ``tangent`` (for argument 0) against a directional difference, and
    ``sg.hessian`` against differences of the unoptimised gradient."""
    _, got = sg.jvp(fn)(*args, tangent)
    assert got == pytest.approx(float(directional_derivative(fn, args, {0: tangent})),
                                rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(sg.hessian(fn)(*args),
                               numeric_hessian(sg.grad(fn, optimize=False), args, 0),
                               rtol=1e-5, atol=1e-7)


def assert_scalar_derivatives_in_every_mode(fn: Callable[..., Any], args: Sequence[Any]) -> None:
    """A function of one float (argument 0): ``sg.grad``, ``sg.vjp`` and ``sg.jvp`` against
    central differences, the optimised gradient against the unoptimised one to rounding,
    and ``sg.grad(sg.grad(fn))`` against differences of the gradient."""
    want = numeric_gradient(fn, args, {}, 0)
    assert_close(sg.grad(fn)(*args), want)
    assert_close(sg.grad(fn)(*args), sg.grad(fn, optimize=False)(*args), rtol=1e-13,
                 atol=1e-13)
    assert_close(sg.vjp(fn)(*args, 1.0), want)
    assert_close(sg.jvp(fn)(*args, 1.0)[1], want)
    assert_close(sg.grad(sg.grad(fn))(*args), numeric_hessian(sg.grad(fn), args),
                 rtol=1e-5, atol=1e-5)
