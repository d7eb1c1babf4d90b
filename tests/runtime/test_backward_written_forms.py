"""The written-out backward (``autograd.specialize``) computes what the generic path does:
numbers in a VJP written as 0-d arrays of the cotangent's dtype, VJPs that call helper
primitives calling their implementations, and the matrix-layer forms of ``matmul``'s
adjoints; each checked against central finite differences and against the generic path
(switch off), in float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.autograd.specialize import direct
from srcgrad.autograd.typed_vjp import inline_typed
from srcgrad.rules import rule_named
from srcgrad.rules.helpers import unreduce
from srcgrad.rules.products import matmul_adjoint_x
from tests.fd import directional_derivative, numeric_gradient, numeric_hessian

ACTIVATIONS = {  # Tensor method: the same function in NumPy
    "relu": lambda v: np.maximum(v, 0.0),
    "tanh": np.tanh,
    "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v)),
    "sqrt": np.sqrt,
}


def _both_ways(run):
    """``run()`` with the written-out backward, then with the generic one."""
    results = []
    for flag in (True, False):
        previous = set_specialized(flag)
        try:
            results.append(run())
        finally:
            set_specialized(previous)
    return results


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(ACTIVATIONS))
def test_numbers_in_a_written_vjp_give_the_generic_paths_values_and_dtype(op, dtype):
    x0 = np.array([0.3, -0.8, 1.7, 0.05]) if op != "sqrt" else np.array([0.3, 0.8, 1.7, 0.05])

    def run():
        x = sg.tensor(x0.astype(dtype), requires_grad=True)
        y = getattr(x * 1.5, op)()
        (y * y).sum().backward()
        return x.grad.numpy()

    written, generic = _both_ways(run)
    assert written.dtype == generic.dtype == dtype
    np.testing.assert_array_equal(written, generic)
    ref = ACTIVATIONS[op]
    expected = numeric_gradient(lambda v: float(np.sum(ref(v * 1.5) ** 2)), (x0,), None, 0)
    tol = 1e-6 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(written, expected, rtol=tol, atol=tol)


def test_a_cotangent_of_another_dtype_keeps_the_numbers_as_numpy_would_treat_them():
    """A float64 gradient into a float32 tanh: the arrays' dtypes differ, so the numbers
    stay Python numbers (a 0-d float64 constant would round ``out * out`` differently)."""
    x0 = np.array([0.3, -0.8, 1.7], dtype=np.float32)
    seed = np.array([1.0, -2.0, 0.5]) / 3.0

    def run():
        x = sg.tensor(x0, requires_grad=True)
        x.tanh().backward(sg.tensor(seed))
        return x.grad.numpy()

    written, generic = _both_ways(run)
    assert written.dtype == generic.dtype == np.float32
    np.testing.assert_array_equal(written, generic)
    np.testing.assert_allclose(written, seed * (1 - np.tanh(x0.astype(np.float64)) ** 2),
                               rtol=1e-6)


def _typed(fn, same, numbers=()):
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    return inline_typed(fn, list(names), [names.index(n) for n in same],
                        [names.index(n) for n in numbers])


def test_inline_typed_writes_only_numbers_that_meet_checked_arrays_as_constants():
    assert _typed(lambda g, out: g * (1 - out * out), ["g", "out"]) == (
        "(g * (k[0] - (out * out)))", [1], [])
    assert _typed(lambda g, out: np.where(out > 0, g, 0.0), ["g", "out"]) == (
        "np.where((out > k[0]), g, k[1])", [0, 0.0], [])
    # y is not checked (a Python number or an array of any dtype): its numbers stay
    assert _typed(lambda g, y: g * (y - 1), ["g"]) is None
    # ``x ** 2`` keeps its number (NumPy squares a number exponent its own way)
    assert _typed(lambda g, x: g * x ** 2, ["g", "x"]) is None
    # a comparison's mask is no array of the checked dtype: a number meeting it stays
    assert _typed(lambda g, x: g * ((x > 0) + 1), ["g", "x"]) == (
        "(g * ((x > k[0]) + 1))", [0], [])
    assert _typed(lambda g, x: g * np.cos(x), ["g", "x"]) is None  # no number at all
    # a ufunc of a number input is a NumPy scalar (not weak): nothing typed after it
    assert _typed(lambda g, x, y: g * (np.log(y) * 2.0), ["g", "x"], ["y"]) is None


def test_a_mask_decided_by_a_number_input_selects_the_array_branch_as_python():
    expr, numbers, terms = _typed(lambda g, x, y: g * np.where(y == 0, 0.0, y * x),
                                  ["g", "x"], ["y"])
    assert expr == "(g * ((y * x) if not h[0] else np.where(h[0], k[0], (y * x))))"
    assert numbers == [0.0]
    assert terms == [("(y == 0)", "cond")]  # computed once per node (Hoisted)
    # a mask of arrays stays NumPy's selection (nothing to write differently)
    assert _typed(lambda g, x, y: np.where(x > y, g, g * y), ["g", "x"], ["y"]) is None


POWERS = [2.0, 3, 0.5, 0.0, 0, -1.5, 1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", POWERS)
def test_power_by_a_number_gives_the_generic_paths_gradient(exponent, dtype):
    """x ** c's written-out backward takes the array branch of its masks in Python (c != 0)
    and NumPy's selection otherwise (c == 0: slope 0, even at x = 0)."""
    x0 = np.array([0.3, 0.0, 1.7, 2.5]) if exponent >= 1 or exponent == 0 else \
        np.array([0.3, 0.9, 1.7, 2.5])

    def run():
        x = sg.tensor(x0.astype(dtype), requires_grad=True)
        ((x * 1.0) ** exponent * 1.5).sum().backward()
        return x.grad.numpy()

    written, generic = _both_ways(run)
    assert written.dtype == generic.dtype == dtype
    np.testing.assert_array_equal(written, generic)
    moved = x0 != 0  # (no central difference across x = 0 for the kinked powers)
    expected = numeric_gradient(lambda v: float(np.sum(v ** exponent * 1.5)), (x0[moved],),
                                None, 0)
    tol = 1e-6 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(written[moved], expected, rtol=tol, atol=tol)
    if exponent == 0:
        np.testing.assert_array_equal(written, 0.0)


def test_a_vjp_calling_helper_primitives_calls_their_implementations_when_written_out():
    vjp = rule_named("sum").vjp["x"]
    assert direct(vjp).__globals__["unreduce"] is unreduce.__srcgrad_impl__
    assert vjp.__globals__["unreduce"] is unreduce  # (the rule itself is untouched)
    assert direct(vjp) is direct(vjp)
    # a rule made by a factory names its helper through a closure cell
    vjp = rule_named("matmul").vjp["x"]
    assert [c.cell_contents for c in direct(vjp).__closure__] == [
        matmul_adjoint_x.__srcgrad_impl__]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_and_mean_through_written_backwards_match_finite_differences(dtype):
    x0 = np.array([[0.3, -0.8, 1.7], [0.2, 0.9, -1.1]])

    def f(v):
        return float(np.sum(np.sin(v - v.mean()) * v.sum(axis=0)) + np.mean(v * v, axis=1).sum())

    def run():
        x = sg.tensor(x0.astype(dtype), requires_grad=True)
        ((x - x.mean()).sin() * x.sum(0)).sum().add((x * x).mean(1).sum()).backward()
        return x.grad.numpy()

    written, generic = _both_ways(run)
    np.testing.assert_array_equal(written, generic)
    tol = 1e-6 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(written, numeric_gradient(f, (x0,), None, 0), rtol=tol, atol=tol)


LAYERS = {  # x's shape, W's shape
    "vector times matrix": ((4,), (4, 3)),
    "matrix times matrix": ((5, 4), (4, 3)),
    "batch of matrices times matrix": ((2, 5, 4), (4, 3)),
    "matrix times vector": ((5, 4), (4,)),
    "vector times vector": ((4,), (4,)),
}


@pytest.mark.parametrize("form", sorted(LAYERS))
def test_a_matmul_layer_backward_matches_finite_differences_in_every_form(form):
    xs, ws = LAYERS[form]
    rng = np.random.default_rng(3)
    x0, w0 = rng.standard_normal(xs), rng.standard_normal(ws)
    b0 = rng.standard_normal(np.shape(x0 @ w0)[-1:])

    def f(x, w, b):
        return float(np.sum(np.tanh(x @ w + b) ** 2))

    def run():
        x, w, b = (sg.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        ((x @ w + b).tanh() ** 2).sum().backward()
        return x.grad.numpy(), w.grad.numpy(), b.grad.numpy()

    written, generic = _both_ways(run)
    for k, (got, again) in enumerate(zip(written, generic)):
        np.testing.assert_array_equal(got, again)
        expected = numeric_gradient(f, (x0, w0, b0), None, k)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("form", ["vector times matrix", "matrix times matrix"])
def test_a_compiled_matmul_layer_differentiates_in_both_modes_and_twice(form):
    """The adjoints' layer forms serve the compiler's emitted code too."""
    xs, ws = LAYERS[form]
    rng = np.random.default_rng(4)
    x0, w0 = rng.standard_normal(xs), rng.standard_normal(ws)

    def f(x, w):
        return np.sum(np.tanh(x @ w) ** 2)

    for k in (0, 1):
        expected = numeric_gradient(f, (x0, w0), None, k)
        np.testing.assert_allclose(sg.grad(f, wrt=k)(x0, w0), expected, rtol=1e-6, atol=1e-8)
        direction = rng.standard_normal(expected.shape)
        _, tangent = sg.jvp(f, wrt=k)(x0, w0, direction)
        np.testing.assert_allclose(tangent, directional_derivative(f, (x0, w0), {k: direction}),
                                   rtol=1e-6, atol=1e-8)
    hessian = sg.hessian(lambda x: f(x, w0))(x0)
    expected = numeric_hessian(sg.grad(lambda x: f(x, w0)), (x0,))
    np.testing.assert_allclose(hessian, expected, rtol=1e-5, atol=1e-7)
