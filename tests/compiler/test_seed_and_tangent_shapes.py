"""sg.vjp checks that each seed has the shape of the result it seeds, and sg.jvp that each
tangent has the shape of the argument it moves, when the derivative runs
(support.seed_of_shape and tangent_of_shape, recorded by ad/reverse.py and ad/forward.py):
one of another shape is refused with SrcGradError naming both shapes. It used to fail inside
the emitted code with NumPy's broadcasting error, or was broadcast against the derivative
into a silently meaningless answer (an array seed of a scalar result, a scalar tangent of an
array argument). A list of numbers is the array it makes, as everywhere NumPy takes an array.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg

X = np.array([0.3, -0.7, 1.2])
M = np.arange(6.0).reshape(2, 3) / 5


def elementwise(x):
    return np.sin(x) * 2.0


def total(x):
    return np.sum(x ** 2)


def pair(x):
    return x ** 2, np.sum(x)


def gram(m):
    return m @ m.T


def scaled(a):
    return a * 3.0


WRONG = [
    (elementwise, (X,), np.ones(2), "(2,)", "(3,)"),
    (elementwise, (X,), np.ones((1, 3)), "(1, 3)", "(3,)"),
    (elementwise, (X,), 1.0, "()", "(3,)"),
    (total, (X,), np.array([1.0, 2.0, 3.0]), "(3,)", "()"),
    (pair, (X,), (np.ones(2), 1.0), "(2,)", "(3,)"),
    (gram, (M,), np.ones((3, 3)), "(3, 3)", "(2, 2)"),
    (scaled, (0.5,), np.ones(2), "(2,)", "()"),
    (scaled, (np.array(0.5),), np.ones(1), "(1,)", "()"),
    (total, (X,), None, "NoneType", "()"),
    (elementwise, (X,), "seed", "str", "(3,)"),
]


@pytest.mark.parametrize("fn,args,seed,found,wanted", WRONG,
                         ids=[f"{w[0].__name__}-{k}" for k, w in enumerate(WRONG)])
def test_a_seed_of_the_wrong_shape_is_refused(fn, args, seed, found, wanted):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.vjp(fn)(*args, seed)
    message = str(info.value)
    assert found in message and wanted in message and "seed shaped like" in message


RIGHT = [
    (elementwise, (X,), np.array([0.5, -1.0, 2.0])),
    (elementwise, (X,), [0.5, -1.0, 2.0]),
    (total, (X,), 1.5),
    (total, (X,), np.array(1.5)),
    (pair, (X,), (np.array([0.5, -1.0, 2.0]), 0.7)),
    (gram, (M,), np.array([[1.0, 0.2], [-0.3, 2.0]])),
    (scaled, (0.5,), 2.0),
]


@pytest.mark.parametrize("fn,args,seed", RIGHT,
                         ids=[f"{r[0].__name__}-{k}" for k, r in enumerate(RIGHT)])
def test_a_seed_shaped_like_the_result_gives_the_vector_jacobian_product(fn, args, seed):
    sg.clear_cache()
    want = numeric_gradient(fn, args, None, 0, seed=seed)
    assert_close(sg.vjp(fn)(*args, seed), want)


def calls_vjp_inside(x):
    return np.sum(sg.vjp(elementwise)(x, x ** 2) ** 2)


def test_a_seed_computed_inside_differentiated_code_still_differentiates():
    sg.clear_cache()
    assert_close(sg.grad(calls_vjp_inside)(X), numeric_gradient(calls_vjp_inside, (X,), None, 0))
    tangent = np.array([0.4, -1.1, 0.8])
    _, d = sg.jvp(calls_vjp_inside)(X, tangent)
    assert_close(d, directional_derivative(calls_vjp_inside, (X,), {0: tangent}))


WRONG_TANGENTS = [
    (elementwise, (X,), np.ones(2), "(2,)", "(3,)"),
    (elementwise, (X,), np.ones((3, 1)), "(3, 1)", "(3,)"),
    (elementwise, (X,), 1.0, "()", "(3,)"),
    (scaled, (0.5,), np.ones(3), "(3,)", "()"),
    (gram, (M,), np.ones(6), "(6,)", "(2, 3)"),
]


@pytest.mark.parametrize("fn,args,tangent,found,wanted", WRONG_TANGENTS,
                         ids=[f"{w[0].__name__}-{k}" for k, w in enumerate(WRONG_TANGENTS)])
def test_a_tangent_of_the_wrong_shape_is_refused(fn, args, tangent, found, wanted):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.jvp(fn)(*args, tangent)
    message = str(info.value)
    assert found in message and wanted in message and "tangent shaped like" in message


def two_arguments(x, m):
    return np.sum((m @ x) ** 2)


def test_a_tuple_of_tangents_is_checked_leaf_by_leaf():
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError, match=r"\(3,\).*\(2, 3\)"):
        sg.jvp(two_arguments, wrt=(0, 1))(X, M, (np.ones(3), np.ones(3)))
    tx, tm = np.array([0.4, -1.1, 0.8]), np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    _, d = sg.jvp(two_arguments, wrt=(0, 1))(X, M, (tx, [list(r) for r in tm]))
    assert_close(d, directional_derivative(two_arguments, (X, M), {0: tx, 1: tm}))
