"""The code generator writes a rule's VJP into the backward when it is one expression of
operators and NumPy ufuncs (``autograd.inline_vjp``), and keeps the call otherwise."""

from __future__ import annotations

import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.inline_vjp import inline
from srcgrad.autograd.rule_node import set_specialized
from tests.fd import numeric_gradient

_SCALE = np.array([2.0])


def _pass_through(g):  # looks at the type only: must never be mistaken for the identity
    return g if isinstance(g, np.ndarray) else g


@pytest.mark.parametrize("fn, expected", [
    (lambda g, y: g * y, "(g * y)"),
    (lambda g, x: g * np.cos(x), "(g * np.cos(x))"),
    (lambda g: -g, "(-g)"),
    (lambda g: g, "g"),
    (lambda g, x: g * (x > 0), "(g * (x > 0))"),
    (lambda g, out: g * (1 - out * out), "(g * (1 - (out * out)))"),
    (lambda g, x: 0.5 * g / x ** 2, "((0.5 * g) / (x ** 2))"),
    (lambda g, out: np.where(out > 0, g, 0.0), "np.where((out > 0), g, 0.0)"),
    (lambda g, x, y: g * np.where(y == 0, 0.0, x != 1), "(g * np.where((y == 0), 0.0, (x != 1)))"),
])
def test_arithmetic_and_ufunc_vjps_become_expressions(fn, expected):
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    assert inline(fn, list(names)) == expected


@pytest.mark.parametrize("fn", [
    lambda g, x: g * x.T,  # attribute read
    lambda g, x: g * np.clip(x, 0.0, 1.0),  # a NumPy function that is not a ufunc
    lambda g, x: np.where(x > 0, g, 0.0, out=g),  # np.where with a keyword
    lambda g, x: g * (x == 0).any(),  # a method of a comparison
    lambda g, axis: g if axis is None else -g,  # an identity test (decided when traced)
    lambda g, axis: -g if axis is not None else g,
    lambda g, axis: g if axis in (None, 0) else -g,
    lambda g, x: g * math.cos(x),  # another module
    lambda g, x: g if x > 0 else -g,  # control flow on a value
    lambda g, x: g * _SCALE,  # an array from the rule's module
    lambda g: _pass_through(g),  # a helper of ours, whatever it does
    lambda g, x: g * np.float32(2.0),  # a NumPy scalar constant
    lambda g, x: g * np.add.reduce(x),  # a ufunc method
    lambda g, x: g * sum(x),  # a builtin
    lambda g, x: [g * v for v in x][0],  # a nested function
])
def test_anything_a_placeholder_cannot_stand_for_keeps_the_call(fn):
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    assert inline(fn, list(names)) is None


def test_a_closure_keeps_the_call():
    k = 3.0
    assert inline(lambda g: g * k, ["g"]) is None


@pytest.mark.parametrize("specialized", [True, False])
def test_relu_and_power_with_inlined_wheres_match_finite_differences(specialized):
    """relu's ``np.where(out > 0, g, 0.0)`` and power's masks (``y == 0``) are written in:
    the gradient at and away from the masked points is still right (0 at relu's kink, the
    slope of ``x ** 0`` is 0), with an infinite cotangent masked to 0, not nan."""
    x0 = np.array([-1.2, 0.0, 0.4, 2.0])
    y0 = np.array([2.0, 0.0, 3.0, 1.5])

    def f(x, y):
        return ((x * 1.5).relu() + (x * x + 1.0) ** y).sum()

    previous = set_specialized(specialized)
    try:
        x = sg.tensor(x0, dtype=sg.float64, requires_grad=True)
        y = sg.tensor(y0, dtype=sg.float64, requires_grad=True)
        out = f(x, y)
        if specialized:  # (the call is gone from the written-out backward)
            relu_node = out.grad_fn.next_functions[0][0].next_functions[0][0]
            assert "vjp" not in relu_node._plan.backward.__srcgrad_source__
        out.backward()
        z = sg.tensor([-1.0, 2.0], dtype=sg.float64, requires_grad=True)
        z.relu().backward(sg.tensor([np.inf, 1.0], dtype=sg.float64))
    finally:
        set_specialized(previous)
    kinkless = lambda a, b: float(np.sum(np.maximum(a * 1.5, 0) + (a * a + 1.0) ** b))  # noqa: E731
    for k, t in enumerate((x, y)):
        expected = numeric_gradient(kinkless, (x0, y0), None, k)
        if k == 0:
            expected[1] = 0.0  # relu'(0) = 0 (PyTorch); the power term's slope at 0 is 0 too
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(z.grad.numpy(), [0.0, 1.0])


def test_the_written_out_backward_of_sin_and_mul_calls_no_vjp():
    previous = set_specialized(True)
    try:
        x = sg.tensor([0.5, 1.5], requires_grad=True)
        for out in ((x * x).sin(), x * x):
            source = out.grad_fn._plan.backward.__srcgrad_source__
            assert "vjp" not in source
    finally:
        set_specialized(previous)


UNARY = {  # Tensor method: the NumPy function it must differentiate like
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "exp": np.exp, "sqrt": np.sqrt, "log": np.log, "reciprocal": np.reciprocal,
    "atan": np.arctan, "square": np.square, "abs": np.abs,
}


@pytest.mark.parametrize("specialized", [True, False])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_inlined_unary_vjps_match_finite_differences(specialized, op):
    x0 = np.array([0.3, -0.9, 1.7]) if op == "abs" else np.array([0.3, 0.9, 1.7])
    previous = set_specialized(specialized)
    try:
        x = sg.tensor(x0, dtype=sg.float64, requires_grad=True)
        y = getattr(x * 1.5, op)()
        (y * y).sum().backward()
    finally:
        set_specialized(previous)
    ref = UNARY[op]
    expected = numeric_gradient(lambda v: float((ref(v * 1.5) ** 2).sum()), (x0,), None, 0)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("specialized", [True, False])
def test_inlined_binary_vjps_with_broadcasting_match_finite_differences(specialized):
    x0 = np.array([[0.3, 0.9, 1.7], [1.1, 0.2, 0.6]])
    y0 = np.array([1.2, 0.7, 2.1])

    def f(x, y):
        return np.sum((x * y - y / x + np.arctan2(x, y)) ** 2)

    previous = set_specialized(specialized)
    try:
        x = sg.tensor(x0, dtype=sg.float64, requires_grad=True)
        y = sg.tensor(y0, dtype=sg.float64, requires_grad=True)
        f(x, y).backward()
    finally:
        set_specialized(previous)
    for k, t in enumerate((x, y)):
        expected = numeric_gradient(lambda a, b: float(f(a, b)), (x0, y0), None, k)
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-6, atol=1e-8)
