"""A value a loop carries unchanged is its initial value (``passes/carries.py``): the
reverse loop's adjoint of an accumulator ``loss = loss + ...`` is the seed in every
iteration, so what is computed from it leaves the loop (no ``unbroadcast`` call per
iteration) and the slot is not carried at all. And a NumPy scalar result's seed is a NumPy
scalar (``support.seed_one``), not a 0-d array that makes every number of the reverse
sweep a 0-d array. Checked against central finite differences in reverse and forward
mode and at second order."""

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.support import seed_one
from tests.compiler.loop_programs import (
    assert_forward_and_second_order_match_differences,
    euler_on_two_floats,
)
from tests.fd import numeric_gradient


def while_accumulator(x, n):
    total = 0.0
    k = 0
    while k < n:
        total = total + np.sum(np.sin(x * k) * x)
        k += 1
    return total


def _reverse_loop(text: str) -> str:
    # from the header of the loop that pops the tape (a while loop's adjoint counts its
    # pops); the seed of a loop-carried number is 1.0, no ``seed_one`` call to start from
    start = text.index("tape.pop()")
    body = text[text.rfind("\n    for ", 0, start):]
    return "\n".join(line for line in body.splitlines()
                     if line.startswith("        ") and not line.lstrip().startswith("#"))


PROGRAMS = [
    (euler_on_two_floats, (np.array([4.0, 0.3]), np.array([1.0, 0.0]), 6)),
    (while_accumulator, (np.linspace(-0.5, 0.9, 4), 3)),
]
IDS = ["for_loop", "while_loop"]


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=IDS)
def test_the_seed_a_reverse_loop_passes_through_is_read_outside_it(fn, args):
    text = sg.source(sg.grad(fn), *args)
    loop = _reverse_loop(text)
    assert "unbroadcast(" not in loop, text
    np.testing.assert_allclose(sg.grad(fn)(*args), numeric_gradient(fn, args, {}, 0),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=IDS)
def test_invariant_carries_stay_right_forward_and_at_second_order(fn, args):
    assert_forward_and_second_order_match_differences(fn, args, np.linspace(0.4, -0.3, args[0].size))


def test_a_loop_that_runs_no_iteration_passes_the_seed_through():
    args = (np.array([4.0, 0.3]), np.array([1.0, 0.0]), 0)
    g = sg.grad(euler_on_two_floats)(*args)
    assert g.shape == (2,) and not np.any(g)
    x = np.linspace(-0.5, 0.9, 4)
    assert not np.any(sg.grad(while_accumulator)(x, 0))


@pytest.mark.parametrize("out", [np.float64(2.5), np.float32(-1.0), np.int64(3)])
def test_the_seed_of_a_numpy_scalar_is_a_numpy_scalar_of_its_dtype(out):
    seed = seed_one(out)
    assert type(seed) is type(out) and seed == 1


def test_the_seed_of_a_0d_array_or_float_keeps_its_kind():
    assert type(seed_one(2.0)) is float
    seed = seed_one(np.array(2.0))
    assert type(seed) is np.ndarray and seed.shape == () and seed == 1.0


def test_a_float32_scalar_result_keeps_a_float32_gradient():
    def f(x):
        total = np.float32(0.0)
        for i in range(len(x)):
            total = total + x[i] * x[i]
        return total

    x = np.array([0.5, -1.5], dtype=np.float32)
    g = sg.grad(f)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2.0 * x, rtol=1e-6)
