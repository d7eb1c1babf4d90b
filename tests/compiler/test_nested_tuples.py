"""Nested tuple and list results: vjp seeds each returned value along its nested position,
jvp returns the tangent nested like the result, and what cannot be supported raises.

Regression for a silent wrong gradient: ``return (x, (y, x * y))`` gave vjp ``(0.7, 0.0)``
(the inner tuple was one opaque result whose seed never reached ``x * y``).
Every derivative here is checked against central finite differences.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import directional_derivative, numeric_gradient


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _fd_vjp(f: Any, args: tuple, seed: Any, i: int) -> Any:
    """d<seed, f(*args)> / d args[i] (int/None leaves of the result carry no cotangent)."""
    return numeric_gradient(f, args, {}, i, seed)


def _fd_jvp(f: Any, args: tuple, wrt: tuple[int, ...], tangent: tuple) -> list[Any]:
    """The result's leaves moved along ``tangent`` (None for int/None leaves)."""
    return _leaves(directional_derivative(f, args, dict(zip(wrt, tangent, strict=True))))


def _same_structure(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same_structure(x, y) for x, y in zip(a, b)))
    return not isinstance(b, (tuple, list))


# --- the functions -------------------------------------------------------------------------

def straight(x, y):
    return (x, (y, x * y))


def list_of_tuples(x, y):
    return [(x, y), (x * y, np.sin(x))]


def deep(x, y):
    return ((x * x, [y, (x * y, np.exp(y))]),)


def under_if(x, y):
    if x > 0:
        return (x * y, (y, np.cos(x)))
    return (y * y, (x, x + y))


def from_loop(x, y):
    state = (x, (y, 1.0))
    for _ in range(3):
        a, (b, c) = state
        state = (a * b, (b + a, c * a))
    return state


def with_constants(x, y):
    return (x, (3, 2.0), [y * x, None])


def repeated(x, y):
    return (x, (x, x * y))


def _pair(a, b):
    return [(a * b, a), b]


def through_call(x, y):
    p, q = _pair(x, y)[0]
    return (p, (q, _pair(y, x)))


def arrays(x, w):
    return (np.sin(x), (x @ w, np.sum(x * x)))


SCALAR_CASES = [
    (straight, (0.5, 0.8), (0.7, (1.3, -0.4))),
    (list_of_tuples, (0.5, 0.8), [(0.7, 0.2), (1.3, -0.4)]),
    (deep, (0.5, 0.8), ((0.3, [0.9, (-1.1, 0.6)]),)),
    (under_if, (0.5, 0.8), (0.7, (1.3, -0.4))),
    (under_if, (-0.5, 0.8), (0.7, (1.3, -0.4))),
    (from_loop, (0.5, 0.8), (0.7, (1.3, -0.4))),
    (with_constants, (0.5, 0.8), (0.7, (1.0, 1.0), [0.3, None])),
    (repeated, (0.5, 0.8), (0.7, (1.3, -0.4))),
    (through_call, (0.5, 0.8), (0.7, (1.3, [(0.2, 0.3), 0.5]))),
]
IDS = [f"{f.__name__}-{k}" for k, (f, _, _) in enumerate(SCALAR_CASES)]


@pytest.mark.parametrize(("f", "args", "seed"), SCALAR_CASES, ids=IDS)
def test_vjp_of_nested_result_matches_finite_differences(f, args, seed):
    got = sg.vjp(f, wrt=(0, 1))(*args, seed)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], _fd_vjp(f, args, seed, i), rtol=1e-6, atol=1e-7)


def test_reported_case():
    got = sg.vjp(straight, wrt=(0, 1))(0.5, 0.8, (0.7, (1.3, -0.4)))
    np.testing.assert_allclose(got, (0.38, 1.1), rtol=1e-12)


@pytest.mark.parametrize(("f", "args", "seed"), SCALAR_CASES, ids=IDS)
def test_jvp_of_nested_result_is_nested_like_it(f, args, seed):
    tangent = (1.0, -0.5)
    value, tan = sg.jvp(f, wrt=(0, 1))(*args, tangent)
    expected = f(*args)
    assert _same_structure(value, expected)
    assert _same_structure(tan, expected)
    for v, e in zip(_leaves(value), _leaves(expected), strict=True):
        if e is None:
            assert v is None
        else:
            np.testing.assert_allclose(v, e, rtol=1e-12)
    for t, ref in zip(_leaves(tan), _fd_jvp(f, args, (0, 1), tangent), strict=True):
        if ref is None:
            assert t in (None, 0)
        else:
            np.testing.assert_allclose(t, ref, rtol=1e-6, atol=1e-7)


def test_jvp_keeps_list_and_tuple_kinds():
    value, tan = sg.jvp(list_of_tuples, wrt=0)(0.5, 0.8, 1.0)
    assert type(value) is list and type(tan) is list
    assert all(type(item) is tuple for item in (*value, *tan))


def test_arrays_in_nested_result():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=3), rng.normal(size=(3, 2))
    seed = (rng.normal(size=3), (rng.normal(size=2), 0.7))
    gx, gw = sg.vjp(arrays, wrt=(0, 1))(x, w, seed)
    np.testing.assert_allclose(gx, _fd_vjp(arrays, (x, w), seed, 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw, _fd_vjp(arrays, (x, w), seed, 1), rtol=1e-6, atol=1e-7)
    t = rng.normal(size=3)
    value, tan = sg.jvp(arrays, wrt=0)(x, w, t)
    assert _same_structure(tan, arrays(x, w))
    for got, ref in zip(_leaves(tan), _fd_jvp(arrays, (x, w), (0,), (t,)), strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)


def test_jvp_through_the_seed_of_a_nested_vjp():
    # d/dseed of vjp is linear in the seed: <tangent, d(out)/dx> summed over the leaves
    pb = sg.vjp(straight, wrt=0)
    value, tan = sg.jvp(pb, wrt=2)(0.5, 0.8, (0.7, (1.3, -0.4)), (1.0, (0.0, 1.0)))
    np.testing.assert_allclose(value, 0.7 - 0.4 * 0.8, rtol=1e-12)
    np.testing.assert_allclose(tan, 1.0 + 0.8, rtol=1e-12)


@pytest.mark.parametrize("seed", [(0.7, 1.3, -0.4), (0.7, (1.3, -0.4, 9.0)), (0.7, 1.3),
                                  0.7])
def test_seed_not_nested_like_the_result_raises(seed):
    with pytest.raises(sg.SrcGradError, match="seed.*nested exactly like"):
        sg.vjp(straight, wrt=(0, 1))(0.5, 0.8, seed)


@pytest.mark.parametrize("transform", [sg.grad, sg.value_and_grad])
def test_grad_of_nested_result_raises(transform):
    with pytest.raises(sg.SrcGradError, match="exactly one element.*under_if returns a "
                                              "nested tuple of 3 value.*sg.vjp"):
        transform(under_if)(0.5, 0.8)


def returns_inside_loop(x, n):
    acc = x
    for _ in range(n):
        acc = acc * x
        if acc > 2.0:
            return (acc, (x, acc))
    return (x, (acc, x))


@pytest.mark.parametrize("transform", [sg.vjp, sg.jvp])
def test_tuple_returned_inside_runtime_loop_raises(transform):
    with pytest.raises(sg.SrcGradError, match="returning a tuple or list from inside a loop"):
        transform(returns_inside_loop)(1.5, 3, 1.0)
