"""Elementwise primitives: NumPy's ufuncs (and their ``math`` twins) with their VJPs.

One line per rule: name, implementation, VJP of each input, ``math``/builtin twins.

Every rule here is ``kind=ELEMENTWISE`` (but ``clip_mask``, the zero-derivative helper
saying where ``clip`` passes the gradient): its Jacobian is diagonal, so forward mode reuses
the VJP formula with the tangent in place of ``g``. Rules with several inputs broadcast;
their cotangents come back in the output's shape and the engine (or the emitted code)
undoes the broadcast with ``unbroadcast``. Kinks follow PyTorch: ``abs'(0) = 0``,
``maximum`` of equal values splits the gradient in half, ``clip`` passes it at the bounds,
``power`` masks ``0 ** 0`` and ``log(0)`` the way ``pow_backward`` does.

Constants are Python floats, never NumPy scalars, so float32 stays float32 (NEP 50).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import ELEMENTWISE, NONDIFF, defrule

LN2 = math.log(2.0)
LN10 = math.log(10.0)


def _unary(name: str, fn: Any, vjp: Any, *aliases: Any, safe: bool = False) -> None:
    defrule(name, fn, inputs=("x",), kind=ELEMENTWISE, vjp={"x": vjp}, aliases=aliases,
            safe_python_derivative=safe)


def _binary(name: str, fn: Any, vjp_x: Any, vjp_y: Any, *aliases: Any,
            safe: bool = False) -> None:
    defrule(name, fn, inputs=("x", "y"), kind=ELEMENTWISE, broadcasts=True,
            vjp={"x": vjp_x, "y": vjp_y}, aliases=aliases, safe_python_derivative=safe)


# --- arithmetic ---------------------------------------------------------------------
_binary("add", np.add, lambda g: g, lambda g: g, safe=True)
_binary("subtract", np.subtract, lambda g: g, lambda g: -g, safe=True)
_binary("multiply", np.multiply, lambda g, y: g * y, lambda g, x: g * x, safe=True)
# (-g * out / y, not -g * x / (y * y): y * y underflows to 0 for a tiny y != 0)
_binary("divide", np.divide, lambda g, y: g / y, lambda g, y, out: -g * out / y, safe=True)


# Power's masks are "double wheres": the masked input is replaced by 1.0 before it reaches
# ``x ** (y - 1)`` / ``log(x)``, not only the result. A mask on the result alone is right
# at first order, but the next derivative of the untaken branch (``0 * inf``) is nan.
def _power_vjp_x(g: Any, x: Any, y: Any) -> Any:
    """d/dx x**y = y * x**(y-1), but 0 where y == 0 (``x ** 0`` has slope 0 at 0, PyTorch)."""
    constant = y == 0
    return g * np.where(constant, 0.0, y * np.where(constant, 1.0, x) ** (y - 1))


def _power_vjp_y(g: Any, x: Any, y: Any, out: Any) -> Any:
    """d/dy x**y = x**y * log(x), but 0 where x == 0 and y >= 0 (PyTorch masks it too;
    its second derivative there is nan where ours is 0, see the kink table)."""
    zero_base = np.logical_and(x == 0, y >= 0)
    return g * np.where(zero_base, 0.0, out * np.log(np.where(zero_base, 1.0, x)))


_binary("power", np.power, _power_vjp_x, _power_vjp_y, math.pow)
_binary("remainder", np.remainder, lambda g: g, lambda g, x, y: -g * np.floor_divide(x, y))
_unary("negative", np.negative, lambda g: -g, safe=True)
_unary("positive", np.positive, lambda g: g)
_unary("reciprocal", np.reciprocal, lambda g, out: -g * (out * out))
_unary("square", np.square, lambda g, x: g * (2 * x))
_unary("sqrt", np.sqrt, lambda g, out: g / (2 * out), math.sqrt)
_unary("absolute", np.absolute, lambda g, x: g * np.sign(x), abs, math.fabs, safe=True)

# --- exponentials and logarithms ----------------------------------------------------
_unary("exp", np.exp, lambda g, out: g * out, math.exp, safe=True)
_unary("expm1", np.expm1, lambda g, out: g * (out + 1), math.expm1, safe=True)
_unary("log", np.log, lambda g, x: g / x, math.log, safe=True)
_unary("log1p", np.log1p, lambda g, x: g / (x + 1), math.log1p, safe=True)
_unary("exp2", np.exp2, lambda g, out: g * (out * LN2))
_unary("log2", np.log2, lambda g, x: g / (x * LN2), math.log2)
_unary("log10", np.log10, lambda g, x: g / (x * LN10), math.log10)
# exp(x - out) <= 1: the softmax weight of x, overflow-free where 1 / (exp(y - x) + 1)
# overflows (and warns) once |x - y| > 709
_binary("logaddexp", np.logaddexp,
        lambda g, x, out: g * np.exp(x - out), lambda g, y, out: g * np.exp(y - out))

# --- trigonometric and hyperbolic ---------------------------------------------------
_unary("sin", np.sin, lambda g, x: g * np.cos(x), math.sin, safe=True)
_unary("cos", np.cos, lambda g, x: -g * np.sin(x), math.cos, safe=True)
_unary("tan", np.tan, lambda g, out: g * (out * out + 1), math.tan, safe=True)
_unary("arcsin", np.arcsin, lambda g, x: g / np.sqrt(1 - x * x), math.asin)
_unary("arccos", np.arccos, lambda g, x: -g / np.sqrt(1 - x * x), math.acos)
_unary("arctan", np.arctan, lambda g, x: g / (x * x + 1), math.atan, safe=True)
_unary("sinh", np.sinh, lambda g, x: g * np.cosh(x), math.sinh, safe=True)
_unary("cosh", np.cosh, lambda g, x: g * np.sinh(x), math.cosh, safe=True)
_unary("tanh", np.tanh, lambda g, out: g * (1 - out * out), math.tanh, safe=True)
_unary("arcsinh", np.arcsinh, lambda g, x: g / np.sqrt(x * x + 1), math.asinh, safe=True)
_unary("arccosh", np.arccosh, lambda g, x: g / np.sqrt(x * x - 1), math.acosh)
_unary("arctanh", np.arctanh, lambda g, x: g / (1 - x * x), math.atanh)
_binary("arctan2", np.arctan2,
        lambda g, x, y: g * y / (x * x + y * y), lambda g, x, y: -g * x / (x * x + y * y),
        math.atan2)
_binary("hypot", np.hypot, lambda g, x, out: g * x / out, lambda g, y, out: g * y / out,
        math.hypot)

# --- selection: maximum, minimum, clip, where ---------------------------------------
_binary("maximum", np.maximum,
        lambda g, x, y: np.where(x > y, g, np.where(x == y, g / 2, 0)),
        lambda g, x, y: np.where(y > x, g, np.where(x == y, g / 2, 0)))
_binary("minimum", np.minimum,
        lambda g, x, y: np.where(x < y, g, np.where(x == y, g / 2, 0)),
        lambda g, x, y: np.where(y < x, g, np.where(x == y, g / 2, 0)))


@dispatching
def clip_mask(x: Any, a_min: Any, a_max: Any) -> Any:
    """Where ``clip`` passes the gradient: inside the bounds, bounds included (PyTorch)."""
    inside = np.ones(np.shape(x), dtype=bool)
    if a_min is not None:
        inside = inside & (np.asarray(x) >= a_min)
    if a_max is not None:
        inside = inside & (np.asarray(x) <= a_max)
    return inside


defrule("clip_mask", clip_mask, inputs=("x", "a_min", "a_max"), kind=NONDIFF)
defrule("clip", np.clip, inputs=("x", "a_min", "a_max"), kind=ELEMENTWISE, broadcasts=True,
        vjp={"x": lambda g, x, a_min, a_max: np.where(clip_mask(x, a_min, a_max), g, 0),
             "a_min": lambda g, x, a_min: np.where(x < a_min, g, 0),
             "a_max": lambda g, x, a_max: np.where(x > a_max, g, 0)})
defrule("where", np.where, inputs=("condition", "x", "y"), kind=ELEMENTWISE, broadcasts=True,
        vjp={"x": lambda g, condition: np.where(condition, g, 0),
             "y": lambda g, condition: np.where(condition, 0, g)})
