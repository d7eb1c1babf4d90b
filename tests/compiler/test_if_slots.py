"""An ``if``'s output slot named after the number one branch keeps (backend/if_slots.py).

A clamp of a float (``min(max(v, lo), hi)``) is written as a person writes it: the branch
that keeps ``v`` assigns nothing. The name is lent only where no read of the old value can
follow the write; each function below would compute a wrong value if it were lent there.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg


def clamp_loop(x, steps):
    y = x
    for _ in range(steps):
        y = min(max(x * y + 0.3, -1.0), 0.9) * 0.8 + 0.1 * math.sin(y)
    return y


def clamp_loop_tangent(x, steps):
    y, dy = x, 1.0
    for _ in range(steps):
        z = x * y + 0.3
        dz = y + dy * x
        if z < -1.0 or z > 0.9:
            z, dz = (-1.0 if z < -1.0 else 0.9), 0.0
        y, dy = z * 0.8 + 0.1 * math.sin(y), dz * 0.8 + dy * math.cos(y) * 0.1
    return dy


@pytest.mark.parametrize("x", [0.6, -0.9, 0.95, 1.3, -2.0, 0.0])
def test_a_clamp_keeps_its_number_in_place_and_the_same_values(x):
    g = sg.grad(clamp_loop)
    text = sg.source(g, x, 30)
    body = text.split("for i in range(steps):")[1]
    assert "else:" not in body and "_t3" not in body, text
    assert g(x, 30) == clamp_loop_tangent(x, 30)
    value, _ = sg.value_and_grad(clamp_loop)(x, 30)
    assert value == clamp_loop(x, 30)


def clamp_nan(x):
    return min(max(x * math.nan, -1.0), 0.9) + x


def test_a_nan_passes_the_clamp_as_python_lets_it():
    value, grad = sg.value_and_grad(clamp_nan)(0.5)
    assert math.isnan(value) and math.isnan(clamp_nan(0.5)) and math.isnan(grad)


def read_after(x):
    z = x * 2.0
    w = min(z, 1.0)
    return w * z


def read_in_the_other_branch(x):
    z = x * 3.0
    if z > 1.0:
        a = x * 5.0
        b = z + 1.0
    else:
        a = z
        b = x
    return a * b


def invariant_in_a_loop(x):
    z = x * 2.0  # (read again by every trip: the loop's `if` must not write it)
    y = 0.0
    for _ in range(4):
        y = y * 0.5 + min(z, 1.0)
    return y


def kept_by_both_branches(x):
    z = x * 2.0
    if x > 0.3:
        a, b = z, x * x
    else:
        a, b = x * 3.0, z
    return a * 3.0 + b


def array_kept(x):
    z = np.sin(x) * 2.0
    w = np.minimum(z, 1.0) if np.sum(x) > 0.0 else z
    return np.sum(w * w)


@pytest.mark.parametrize("fn,points", [
    (read_after, [0.2, 0.9]),
    (read_in_the_other_branch, [0.1, 0.7]),
    (invariant_in_a_loop, [0.3, 0.9]),
    (kept_by_both_branches, [0.1, 0.7]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_name_is_not_lent_where_its_old_value_is_read_again(fn, points):
    g = sg.grad(fn)
    for x in points:
        value, _ = sg.value_and_grad(fn)(x)
        assert value == fn(x)
        assert_close(g(x), numeric_gradient(fn, (x,), None, 0))


def test_an_array_keeps_its_own_slot():
    x = np.array([0.2, 0.9, -0.3])
    g = sg.grad(array_kept)
    assert_close(g(x), numeric_gradient(array_kept, (x,), None, 0))
