"""More elementwise primitives (contract v3): ``fabs``, angle conversions, ``logaddexp2``,
``fmax``/``fmin``, ``cbrt``, ``nan_to_num`` and ``sinc``, with their ``math`` twins.

Same shape as :mod:`.elementwise`: one line per rule, ``kind=ELEMENTWISE`` (diagonal
Jacobian, so forward mode is the VJP formula with the tangent for ``g``). Conventions at
the special points (checked value by value in ``tests/reliability/kinks_elem.py``):

==========  ==========================================================================
fabs        ``sign(x)``: 0 at 0, as ``absolute`` and PyTorch's ``abs``
fmax, fmin  PyTorch's ``fmax``/``fmin``: the gradient goes to the argument whose value is
            returned; a NaN argument gets none unless both are NaN (then ``x`` gets it);
            a tie goes entirely to ``x`` (unlike ``maximum``, which splits it)
cbrt        ``1 / (3 cbrt(x)^2)``: ``inf`` at 0, as ``sqrt``'s ``1 / (2 sqrt(x))`` is and as
            the power rule ``x ** (1/3)`` gives (PyTorch has no ``cbrt``)
nan_to_num  1 where ``x`` is finite, 0 where NaN or an infinity was replaced (PyTorch)
sinc        ``sinc_derivative(x, 1)``: exactly 0 at 0, second derivative ``-pi^2/3`` there
            (PyTorch's second derivative at 0 is NaN; srcgrad's is the limit)
==========  ==========================================================================

``sinc_derivative(x, n)`` is the n-th derivative of ``np.sinc``, a primitive whose VJP is
``sinc_derivative(x, n + 1)``, so sinc differentiates to any order. Near 0 it sums the
Taylor series (the closed form divides by powers of ``x``); elsewhere it uses Leibniz's
rule on ``sin(pi x) / pi`` times ``1 / x``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .registry import ELEMENTWISE, defrule

DEG = math.pi / 180.0  # Python floats: float32 stays float32 (NEP 50)
RAD = 180.0 / math.pi


def _unary(name: str, fn: Any, vjp: Any, *aliases: Any, **fields: Any) -> None:
    defrule(name, fn, inputs=("x",), kind=ELEMENTWISE, vjp={"x": vjp}, aliases=aliases,
            **fields)


def _binary(name: str, fn: Any, vjp_x: Any, vjp_y: Any, **fields: Any) -> None:
    defrule(name, fn, inputs=("x", "y"), kind=ELEMENTWISE, broadcasts=True,
            vjp={"x": vjp_x, "y": vjp_y}, **fields)


# --- fmax / fmin: where the returned value came from ---------------------------------------
def _takes_x(x: Any, y: Any, keep: Any) -> Any:
    """Where ``fmax``/``fmin`` (``keep`` = ``greater_equal``/``less_equal``) returns ``x``:
    ``x`` wins or ties, or ``y`` is NaN (both NaN included, as PyTorch)."""
    return np.logical_or(keep(x, y), np.isnan(y))


def _resolve_nan_to_num(params: dict[str, Any], ndims: dict[str, int | None]) -> dict[str, Any]:
    # copy=False overwrites x in place and returns x itself: the value x had before the call
    # would be silently replaced for every later use, so it is refused, not differentiated
    if params.get("copy") is False:
        error = ValueError("np.nan_to_num(x, copy=False) overwrites x in place, which srcgrad "
                           "does not differentiate.")
        error.advice = ("Use the result of np.nan_to_num(x) (copy=True, the default): "
                        "x = np.nan_to_num(x).")  # type: ignore[attr-defined]
        raise error
    return params


# --- sinc and its derivatives -----------------------------------------------------------------
_SERIES_BELOW = 1.0  # |x| under this: Taylor series; the closed form loses digits near 0
_SERIES_TERMS = 30  # pi^(2k) / (2k)! is below 1e-17 of the largest term by k = 30 at |x| = 1


def _sinc_series(x: np.ndarray, n: int) -> np.ndarray:
    """``d^n/dx^n sinc(x)`` from ``sinc(x) = sum_k (-1)^k (pi x)^(2k) / (2k+1)!``."""
    total = np.zeros_like(x)
    for k in range((n + 1) // 2, (n + 1) // 2 + _SERIES_TERMS):
        p = 2 * k - n  # power of x left after n derivatives
        c = (-1.0) ** k * math.pi ** (2 * k) / ((2 * k + 1) * math.factorial(p))
        total = total + c * x ** p
    return total


def _sinc_closed(x: np.ndarray, n: int) -> np.ndarray:
    """Leibniz: ``sum_j C(n,j) (d^j sin(pi x) / pi) (d^(n-j) 1/x)``, for ``x`` away from 0."""
    total = np.zeros_like(x)
    for j in range(n + 1):
        sin_part = math.pi ** (j - 1) * np.sin(math.pi * x + j * math.pi / 2)
        m = n - j
        inv_part = (-1.0) ** m * math.factorial(m) / x ** (m + 1)
        total = total + math.comb(n, j) * sin_part * inv_part
    return total


@dispatching
def sinc_derivative(x: Any, n: int) -> Any:
    """The ``n``-th derivative of ``np.sinc`` at ``x`` (``n >= 1``), in ``x``'s float dtype."""
    x = as_array(x)
    work = x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float64)
    near = np.abs(work) < _SERIES_BELOW
    with np.errstate(divide="ignore", invalid="ignore"):
        far = _sinc_closed(np.where(near, 1.0, work).astype(work.dtype), n)
    result = np.where(near, _sinc_series(np.where(near, work, 0.0).astype(work.dtype), n), far)
    return result.astype(work.dtype)[()] if result.ndim == 0 else result.astype(work.dtype)


# --- the rules ------------------------------------------------------------------------------
# (PyTorch has no fabs: np.fabs of a Tensor is recorded as its abs on floats)
_unary("fabs", np.fabs, lambda g, x: g * np.sign(x), torch="AbsBackward0",
       kinks="fabs'(0) = 0 (as abs and PyTorch's abs); second derivative 0 everywhere.")
_unary("deg2rad", np.deg2rad, lambda g: g * DEG, np.radians, math.radians,
       safe_python_derivative=True, torch="Deg2RadBackward0", float_result=True,
       pytorch=("t.deg2rad", "sg.deg2rad"))
_unary("rad2deg", np.rad2deg, lambda g: g * RAD, np.degrees, math.degrees,
       safe_python_derivative=True, torch="Rad2DegBackward0", float_result=True,
       pytorch=("t.rad2deg", "sg.rad2deg"))
# (out ** -2, not 1 / (out * out): at 0 the product rule of out * out meets inf * 0 = NaN
# in the second derivative, which is -inf)
_unary("cbrt", np.cbrt, lambda g, out: g * (np.power(out, -2.0) / 3.0),
       *[f for f in (getattr(math, "cbrt", None),) if f is not None],  # math.cbrt: 3.11+
       float_result=True,
       kinks=("cbrt'(0) = inf, as sqrt'(0) and PyTorch's x ** (1/3) (forward mode: NaN along a "
              "zero tangent); second derivative -inf at 0."))
_FMAX_FMIN_KINKS = ("The gradient goes to the argument whose value is returned: a tie goes "
                    "entirely to x (unlike maximum/minimum, which split it), a NaN argument "
                    "gets none unless both are NaN (then x gets it), as PyTorch's fmax/fmin.")
_binary("logaddexp2", np.logaddexp2,
        lambda g, x, y: g / (np.exp2(y - x) + 1), lambda g, x, y: g / (np.exp2(x - y) + 1),
        torch=("Logaddexp2Backward0", 2), float_result=True,
        pytorch=("t.logaddexp2", "sg.logaddexp2"),
        kinks=("Both arguments -inf: NaN gradients; one -inf: that argument's gradient is 0 and "
               "the other's is 1."))
_binary("fmax", np.fmax,
        lambda g, x, y: np.where(_takes_x(x, y, np.greater_equal), g, 0),
        lambda g, x, y: np.where(_takes_x(x, y, np.greater_equal), 0, g),
        torch=("FmaxBackward0", 2), pytorch=("t.fmax", "sg.fmax"), kinks=_FMAX_FMIN_KINKS)
_binary("fmin", np.fmin,
        lambda g, x, y: np.where(_takes_x(x, y, np.less_equal), g, 0),
        lambda g, x, y: np.where(_takes_x(x, y, np.less_equal), 0, g),
        torch=("FminBackward0", 2), pytorch=("t.fmin", "sg.fmin"), kinks=_FMAX_FMIN_KINKS)
defrule("nan_to_num", np.nan_to_num, inputs=("x",), params=("copy", "nan", "posinf", "neginf"),
        form="x, copy=True, nan=0.0, posinf=None, neginf=None", kind=ELEMENTWISE,
        resolve=_resolve_nan_to_num, vjp={"x": lambda g, x: np.where(np.isfinite(x), g, 0)},
        torch=("NanToNumBackward0", 1), pytorch=("t.nan_to_num", "sg.nan_to_num"),
        kinks="1 where x is finite, 0 where a NaN or an infinity was replaced (PyTorch).")
_unary("sinc", np.sinc, lambda g, x: g * sinc_derivative(x, 1),
       torch="SincBackward0", float_result=True, pytorch=("t.sinc", "sg.sinc"),
       kinks=("sinc'(0) = 0 and sinc''(0) = -pi^2/3, the limits (PyTorch's second derivative "
              "at 0 is NaN)."))
defrule("sinc_derivative", sinc_derivative, inputs=("x",), params=("n",), kind=ELEMENTWISE,
        vjp={"x": lambda g, x, n: g * sinc_derivative(x, n + 1)}, float_result=True)
