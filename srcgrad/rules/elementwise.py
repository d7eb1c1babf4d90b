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

from .dispatch import as_array, dispatching
from .masks import dropped, kept
from .registry import ELEMENTWISE, NONDIFF, defrule
from .ties import larger_picks, taken
from .torch_names import clip_node, power_node, scalar_form, subtract_node

LN2 = math.log(2.0)
LN10 = math.log(10.0)


def _unary(name: str, fn: Any, vjp: Any, *aliases: Any, safe: bool = False,
           **fields: Any) -> None:
    defrule(name, fn, inputs=("x",), kind=ELEMENTWISE, vjp={"x": vjp}, aliases=aliases,
            safe_python_derivative=safe, **fields)


def _binary(name: str, fn: Any, vjp_x: Any, vjp_y: Any, *aliases: Any,
            safe: bool = False, **fields: Any) -> None:
    defrule(name, fn, inputs=("x", "y"), kind=ELEMENTWISE, broadcasts=True,
            vjp={"x": vjp_x, "y": vjp_y}, aliases=aliases, safe_python_derivative=safe,
            **fields)


# --- arithmetic ---------------------------------------------------------------------
_binary("add", np.add, lambda g: g, lambda g: g, safe=True, torch=("AddBackward0", 2), operator="+",
        pytorch=("t + u", "t.add", "sg.add"), fresh=True, correctly_rounded=True)
_binary("subtract", np.subtract, lambda g: g, lambda g: -g, safe=True,
        torch=subtract_node, operator="-",
        pytorch=("t - u", "t.sub", "t.subtract", "sg.sub"), fresh=True, correctly_rounded=True)
_binary("multiply", np.multiply, lambda g, y: g * y, lambda g, x: g * x, safe=True,
        torch=scalar_form("MulBackward0", "MulBackward1"), operator="*",
        pytorch=("t * u", "t.mul", "t.multiply", "sg.mul"), fresh=True, correctly_rounded=True)
# (-g * out / y, not -g * x / (y * y): y * y underflows to 0 for a tiny y != 0)
_binary("divide", np.divide, lambda g, y: g / y, lambda g, y, out: -g * out / y, safe=True,
        torch=scalar_form("DivBackward0", "DivBackward1"), float_result=True, operator="/",
        pytorch=("t / u", "t.div", "t.divide", "t.true_divide", "sg.div"),
        fresh=True, correctly_rounded=True)


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


_binary("power", np.power, _power_vjp_x, _power_vjp_y, math.pow, torch=power_node, operator="**",
        pytorch=("t ** u", "t.pow", "sg.pow"),
        kinks=("d/dx x**0 = 0 (also at x = 0); d/dy 0**y = 0 for y >= 0 (PyTorch masks it too) "
               "and its second derivative is 0 (PyTorch's is NaN); a negative base has a NaN d/dy"
               " (log of a negative number)."), fresh=True)
_binary("remainder", np.remainder, lambda g: g, lambda g, x, y: -g * np.floor_divide(x, y),
        torch=("RemainderBackward0", 2), operator="%",
        pytorch=("t % u",))
_unary("negative", np.negative, lambda g: -g, safe=True, torch="NegBackward0", operator="-",
       pytorch=("-t", "t.neg", "t.negative", "sg.neg"), fresh=True, correctly_rounded=True)
_unary("positive", np.positive, lambda g: g, torch="PositiveBackward0", correctly_rounded=True)
_unary("reciprocal", np.reciprocal, lambda g, out: -g * (out * out),
       torch="ReciprocalBackward0", float_result=True,
       pytorch=("t.reciprocal", "sg.reciprocal"))
_unary("square", np.square, lambda g, x: g * (2 * x), torch="PowBackward0",
       pytorch=("t.square", "sg.square"), fresh=True)
_unary("sqrt", np.sqrt, lambda g, out: g / (2 * out), math.sqrt,
       torch="SqrtBackward0", float_result=True,
       pytorch=("t.sqrt", "sg.sqrt"),
       kinks="sqrt'(0) = inf (forward mode: inf * 0 = NaN along a zero tangent).", fresh=True)
_unary("absolute", np.absolute, lambda g, x: g * np.sign(x), abs, math.fabs, safe=True,
       torch="AbsBackward0",
       pytorch=("abs(t)", "t.abs", "sg.abs"),
       kinks="abs'(0) = 0 (PyTorch's convention); second derivative 0 everywhere.",
       correctly_rounded=True)

# --- exponentials and logarithms ----------------------------------------------------
_unary("exp", np.exp, lambda g, out: g * out, math.exp, safe=True,
       torch="ExpBackward0", float_result=True,
       pytorch=("t.exp", "sg.exp"), fresh=True)
_unary("expm1", np.expm1, lambda g, out: g * (out + 1), math.expm1, safe=True,
       torch="Expm1Backward0", float_result=True,
       pytorch=("t.expm1", "sg.expm1"))
_unary("log", np.log, lambda g, x: g / x, math.log, safe=True,
       torch="LogBackward0", float_result=True,
       pytorch=("t.log", "sg.log"), fresh=True)
_unary("log1p", np.log1p, lambda g, x: g / (x + 1), math.log1p, safe=True,
       torch="Log1PBackward0", float_result=True,
       pytorch=("t.log1p", "sg.log1p"))
_unary("exp2", np.exp2, lambda g, out: g * (out * LN2), torch="Exp2Backward0", float_result=True,
       pytorch=("t.exp2", "sg.exp2"))
_unary("log2", np.log2, lambda g, x: g / (x * LN2), math.log2,
       torch="Log2Backward0", float_result=True,
       pytorch=("t.log2", "sg.log2"))
_unary("log10", np.log10, lambda g, x: g / (x * LN10), math.log10,
       torch="Log10Backward0", float_result=True,
       pytorch=("t.log10", "sg.log10"))
# exp(x - out) <= 1: the softmax weight of x, overflow-free where 1 / (exp(y - x) + 1)
# overflows (and warns) once |x - y| > 709
_binary("logaddexp", np.logaddexp,
        lambda g, x, out: g * np.exp(x - out), lambda g, y, out: g * np.exp(y - out),
        torch=("LogaddexpBackward0", 2), float_result=True,
        kinks=("Both arguments -inf: NaN gradients; one -inf: that argument's gradient is 0 and "
               "the other's is 1. Overflow-free at |x - y| = 800 (gradients 1 and 0); its "
               "second derivative there is 0 (PyTorch's is NaN)."))

# --- trigonometric and hyperbolic ---------------------------------------------------
_unary("sin", np.sin, lambda g, x: g * np.cos(x), math.sin, safe=True,
       torch="SinBackward0", float_result=True,
       pytorch=("t.sin", "sg.sin"), fresh=True)
_unary("cos", np.cos, lambda g, x: -g * np.sin(x), math.cos, safe=True,
       torch="CosBackward0", float_result=True,
       pytorch=("t.cos", "sg.cos"), fresh=True)
_unary("tan", np.tan, lambda g, out: g * (out * out + 1), math.tan, safe=True,
       torch="TanBackward0", float_result=True,
       pytorch=("t.tan", "sg.tan"))
_unary("arcsin", np.arcsin, lambda g, x: g / np.sqrt(1 - x * x), math.asin,
       torch="AsinBackward0", float_result=True,
       pytorch=("t.asin", "t.arcsin", "sg.asin"))
_unary("arccos", np.arccos, lambda g, x: -g / np.sqrt(1 - x * x), math.acos,
       torch="AcosBackward0", float_result=True,
       pytorch=("t.acos", "t.arccos", "sg.acos"))
_unary("arctan", np.arctan, lambda g, x: g / (x * x + 1), math.atan, safe=True,
       torch="AtanBackward0", float_result=True,
       pytorch=("t.atan", "t.arctan", "sg.atan"))
_unary("sinh", np.sinh, lambda g, x: g * np.cosh(x), math.sinh, safe=True,
       torch="SinhBackward0", float_result=True,
       pytorch=("t.sinh", "sg.sinh"))
_unary("cosh", np.cosh, lambda g, x: g * np.sinh(x), math.cosh, safe=True,
       torch="CoshBackward0", float_result=True,
       pytorch=("t.cosh", "sg.cosh"))
_unary("tanh", np.tanh, lambda g, out: g * (1 - out * out), math.tanh, safe=True,
       torch="TanhBackward0", float_result=True,
       pytorch=("t.tanh", "sg.tanh", "sg.nn.functional.tanh", "sg.nn.Tanh"), fresh=True)
_unary("arcsinh", np.arcsinh, lambda g, x: g / np.sqrt(x * x + 1), math.asinh, safe=True,
       torch="AsinhBackward0", float_result=True,
       pytorch=("t.asinh", "sg.asinh"))
_unary("arccosh", np.arccosh, lambda g, x: g / np.sqrt(x * x - 1), math.acosh,
       torch="AcoshBackward0", float_result=True,
       pytorch=("t.acosh", "sg.acosh"))
_unary("arctanh", np.arctanh, lambda g, x: g / (1 - x * x), math.atanh,
       torch="AtanhBackward0", float_result=True,
       pytorch=("t.atanh", "sg.atanh"))
_binary("arctan2", np.arctan2,
        lambda g, x, y: g * y / (x * x + y * y), lambda g, x, y: -g * x / (x * x + y * y),
        math.atan2, torch=("Atan2Backward0", 2), float_result=True,
        pytorch=("t.atan2", "sg.atan2"))
# (math.hypot takes any number of coordinates: its own primitive, rules/math_items.py)
_binary("hypot", np.hypot, lambda g, x, out: g * x / out, lambda g, y, out: g * y / out,
        torch=("HypotBackward0", 2), float_result=True)

# --- selection: maximum, minimum, clip, where ---------------------------------------
# (ties.py: a mask where nothing ties, one np.where; a tie shares half)
_binary("maximum", np.maximum,
        lambda g, x, y: taken(g, larger_picks(x, y)),
        lambda g, x, y: taken(g, larger_picks(y, x)),
        torch=("MaximumBackward0", 2),
        pytorch=("t.maximum", "sg.maximum"),
        kinks=("At a tie x == y each input gets half the gradient (PyTorch); relu written as "
               "np.maximum(x, 0) so has slope 1/2 at 0."))
_binary("minimum", np.minimum,
        lambda g, x, y: taken(g, larger_picks(y, x)),
        lambda g, x, y: taken(g, larger_picks(x, y)),
        torch=("MinimumBackward0", 2),
        pytorch=("t.minimum", "sg.minimum"),
        kinks="At a tie x == y each input gets half the gradient (PyTorch).")


@dispatching
def clip_mask(x: Any, a_min: Any, a_max: Any) -> Any:
    """Where ``clip`` passes the gradient: inside the bounds, bounds included (PyTorch)."""
    inside = np.ones_like(x, dtype=bool)  # (of x's library: CuPy refuses a host mask)
    if a_min is not None:
        inside = inside & (as_array(x) >= a_min)
    if a_max is not None:
        inside = inside & (as_array(x) <= a_max)
    return inside


defrule("clip_mask", clip_mask, inputs=("x", "a_min", "a_max"), kind=NONDIFF)
defrule("clip", np.clip, inputs=("x", "a_min", "a_max"), kind=ELEMENTWISE, broadcasts=True,
        vjp={"x": lambda g, x, a_min, a_max: kept(g, clip_mask(x, a_min, a_max)),
             "a_min": lambda g, x, a_min: np.where(x < a_min, g, 0),
             "a_max": lambda g, x, a_max: np.where(x > a_max, g, 0)},
        torch=clip_node, methods=("clip",),
        pytorch=("t.clamp", "t.clip", "sg.clamp", "sg.clip"),
        kinks=("At a bound (x == a_min or x == a_max) the gradient passes to x (PyTorch's clamp);"
               " strictly outside it goes to the bound, if the bound is an array argument."))
defrule("where", np.where, inputs=("condition", "x", "y"), kind=ELEMENTWISE, broadcasts=True,
        vjp={"x": lambda g, condition: kept(g, condition),  # (masks.py: fast on a batch)
             "y": lambda g, condition: dropped(g, condition)}, torch=("WhereBackward0", 2),
        pytorch=("t.where", "sg.where"),
        kinks=("The untaken branch gets a zero cotangent, but an inf/NaN computed there still "
               "reaches its argument as 0 * inf = NaN (as in PyTorch): keep the untaken branch "
               "finite with an inner np.where."))
