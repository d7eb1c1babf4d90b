"""Split, sort and meshgrid keep float32 gradients float32 (compiler and runtime; a
tangent has the primal result's dtype), and
``np.sort``'s gradient at ties is the documented one (rules/sorting.py): each sorted
position's gradient goes to the element a stable sort puts there, never split."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close

import srcgrad as sg

W = np.array([1.0, -2.0, 0.5, 3.0])


def split_program(x):
    a, b = np.split(x, 2)
    return np.sum(a * np.sin(b))


def sort_program(x):
    return np.sum(np.sort(x) * W)


def meshgrid_program(x):
    a, b = np.meshgrid(x[:2], x[2:], indexing="ij")
    return np.sum(a * b ** 2)


@pytest.mark.parametrize("fn", [split_program, sort_program, meshgrid_program],
                         ids=lambda f: f.__name__)
def test_float32_gradient_stays_float32(fn):
    x = np.array([0.6, -1.3, 0.4, 1.1], dtype=np.float32)
    g = sg.grad(fn)(x)
    assert g.dtype == np.float32
    t = sg.tensor(x, requires_grad=True)
    fn(t).backward()
    assert t.grad.dtype == sg.float32
    assert_close(t.grad.numpy(), g, rtol=1e-5, atol=1e-6)
    value, tangent = sg.jvp(fn)(x, np.ones(4, dtype=np.float32))
    assert np.asarray(tangent).dtype == np.asarray(fn(x)).dtype == np.asarray(value).dtype


TIED = np.array([1.0, 3.0, 1.0, -2.0])
# stable order of TIED: -2.0 (index 3), 1.0 (index 0), 1.0 (index 2), 3.0 (index 1); so
# element 3 takes W[0], element 0 takes W[1], element 2 takes W[2], element 1 takes W[3]
TIED_GRADIENT = np.array([W[1], W[3], W[2], W[0]])


def test_sort_gradient_at_ties_follows_the_stable_order_in_every_mode():
    assert_close(sg.grad(sort_program)(TIED), TIED_GRADIENT)
    t = sg.tensor(TIED, requires_grad=True)
    sort_program(t).backward()
    assert_close(t.grad.numpy(), TIED_GRADIENT)
    for i in range(4):
        e = np.eye(4)[i]
        _, tangent = sg.jvp(sort_program)(TIED, e)
        assert_close(tangent, TIED_GRADIENT[i])


def test_runtime_sort_indices_keep_tied_elements_in_order():
    values, indices = sg.tensor(TIED).sort()
    assert indices.tolist() == [3, 0, 2, 1]
    assert sg.tensor(TIED).sort(descending=True).indices.tolist() == [1, 0, 2, 3]
