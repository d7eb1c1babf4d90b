"""Special functions (contract v3): ``math.erf``, ``math.erfc``, ``math.lgamma`` and the
``polygamma`` family that differentiates ``lgamma`` to any order.

NumPy has no ufuncs for these (and srcgrad uses no scipy at run time), so each primitive
here is a :func:`dispatching` function applied elementwise, keeping ``x``'s float dtype;
the ``math`` functions are their twins (``math.erf(x)`` on a float is the same primitive).

========== ==============================================================================
erf        ``g * 2/sqrt(pi) * exp(-x^2)``;  ``erfc``: its negative
lgamma     ``g * polygamma(0, x)`` (digamma); ``inf`` at the poles 0, -1, -2, ... (where
           ``math.lgamma`` raises, the array version gives ``inf`` like PyTorch)
polygamma  ``polygamma(n, x)``, the n-th derivative of digamma; its VJP is
           ``g * polygamma(n + 1, x)``, so every order has a rule
========== ==============================================================================

``polygamma`` shifts ``x`` up with the recurrence ``psi_n(x) = psi_n(x + 1) - (-1)^n n! /
x^(n+1)`` until ``x >= 15``, then sums the asymptotic series; negative ``x`` is reflected
first for ``n`` = 0 and 1 (so ``lgamma`` and its second derivative cost the same
everywhere). At the poles (``x`` = 0, -1, ...), as PyTorch: odd ``n`` gives ``inf``; even
``n`` gives ``-inf`` at 0 (the limit from the right) and NaN at the negative integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .registry import ELEMENTWISE, defrule
from .torch_names import polygamma_node

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# Bernoulli numbers B_2, B_4, ..., B_16 for the asymptotic series
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_ASYMPTOTIC_FROM = 15.0


def _float_work(x: Any) -> tuple[np.ndarray, np.dtype]:
    """``x`` as a float64 array to compute in, and the float dtype to return."""
    a = as_array(x)
    dtype = a.dtype if np.issubdtype(a.dtype, np.floating) else np.dtype(np.float64)
    return a.astype(np.float64), dtype


def _finish(values: np.ndarray, dtype: np.dtype) -> Any:
    out = values.astype(dtype)
    return out[()] if out.ndim == 0 else out


def _by_element(fn: Callable[[float], float], name: str) -> Callable[..., Any]:
    """An array version of a ``math`` function of one float."""
    each = np.vectorize(fn, otypes=[np.float64])

    def impl(x: Any) -> Any:
        work, dtype = _float_work(x)
        with np.errstate(invalid="ignore"):  # NaN in, NaN out, quietly as a ufunc
            return _finish(each(work), dtype)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"``math.{name}`` elementwise, in ``x``'s float dtype."
    return dispatching(impl)


def _lgamma_or_pole(v: float) -> float:
    """``math.lgamma``, but ``inf`` at the poles, where ``math.lgamma`` raises."""
    if v <= 0 and math.isfinite(v) and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


erf = _by_element(math.erf, "erf")
erfc = _by_element(math.erfc, "erfc")
lgamma = _by_element(_lgamma_or_pole, "lgamma")


def _asymptotic(n: int, x: np.ndarray) -> np.ndarray:
    """``psi_n(x)`` for ``x >= 15`` (Abramowitz and Stegun 6.3.18, 6.4.11)."""
    if n == 0:
        total = np.log(x) - 0.5 / x
        for k, b in enumerate(_BERNOULLI, start=1):
            total = total - b / (2 * k * x ** (2 * k))
        return total
    total = math.factorial(n - 1) / x ** n + math.factorial(n) / (2.0 * x ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        total = total + b * math.factorial(2 * k + n - 1) / (
            math.factorial(2 * k) * x ** (2 * k + n))
    return (-1.0) ** (n + 1) * total


def _shifted(n: int, x: np.ndarray) -> np.ndarray:
    """``psi_n(x)`` by the recurrence up to ``x >= 15``, then the series."""
    total = np.zeros_like(x)
    sign = (-1.0) ** (n + 1) * math.factorial(n)
    low = x < _ASYMPTOTIC_FROM
    while low.any():
        step = np.where(low, x, 1.0)
        total = total + np.where(low, sign / step ** (n + 1), 0.0)
        x = np.where(low, x + 1.0, x)
        low = x < _ASYMPTOTIC_FROM
    return total + _asymptotic(n, x)


@dispatching
def polygamma(n: int, x: Any) -> Any:
    """The ``n``-th derivative of digamma (``n = 0``: digamma) at ``x``, elementwise."""
    work, dtype = _float_work(x)
    pole = (work <= 0) & (work == np.floor(work))
    safe = np.where(pole | ~np.isfinite(work), 0.5, work)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if n <= 1:
            # reflection: psi(x) = psi(1-x) - pi cot(pi x); psi1(x) = pi^2/sin^2(pi x) - psi1(1-x)
            neg = safe < 0
            up = np.where(neg, 1.0 - safe, safe)
            values = _shifted(n, up)
            s = np.sin(math.pi * safe)
            if n == 0:
                values = np.where(neg, values - math.pi * np.cos(math.pi * safe) / s, values)
            else:
                values = np.where(neg, math.pi ** 2 / (s * s) - values, values)
        else:
            values = _shifted(n, safe)
    at_pole = np.inf if n % 2 else np.where(work == 0, -np.inf, np.nan)
    values = np.where(pole, at_pole, values)
    values = np.where(np.isfinite(work), values, _at_infinity(n, work))
    return _finish(values, dtype)


def _at_infinity(n: int, x: np.ndarray) -> np.ndarray:
    """digamma(inf) = inf, psi_n(inf) = 0; NaN for NaN and -inf (PyTorch)."""
    if n == 0:
        return np.where(x == np.inf, np.inf, np.nan)
    return np.where(x == np.inf, 0.0, np.nan)


_POLES = ("At the poles 0, -1, -2, ... (as PyTorch): lgamma' is -inf at 0 and NaN at the "
          "negative integers; lgamma'' (trigamma) is inf; forward mode NaN along a zero "
          "tangent.")
defrule("erf", erf, inputs=("x",), kind=ELEMENTWISE, aliases=(math.erf,),
        vjp={"x": lambda g, x: g * (TWO_OVER_SQRT_PI * np.exp(-(x * x)))},
        torch="ErfBackward0", float_result=True, pytorch=("t.erf", "sg.erf"))
defrule("erfc", erfc, inputs=("x",), kind=ELEMENTWISE, aliases=(math.erfc,),
        vjp={"x": lambda g, x: g * (-TWO_OVER_SQRT_PI * np.exp(-(x * x)))},
        torch="ErfcBackward0", float_result=True, pytorch=("t.erfc", "sg.erfc"))
defrule("lgamma", lgamma, inputs=("x",), kind=ELEMENTWISE, aliases=(math.lgamma,),
        vjp={"x": lambda g, x: g * polygamma(0, x)},
        torch="LgammaBackward0", float_result=True, pytorch=("t.lgamma", "sg.lgamma"),
        kinks=_POLES)
defrule("polygamma", polygamma, inputs=("x",), params=("n",), kind=ELEMENTWISE, form="n, x",
        vjp={"x": lambda g, x, n: g * polygamma(n + 1, x)},
        torch=polygamma_node, float_result=True,
        pytorch=("t.digamma", "t.polygamma", "sg.digamma", "sg.polygamma"),
        kinks=("At the poles 0, -1, -2, ...: odd n gives inf; even n gives -inf at 0 (the limit "
               "from the right) and NaN at the negative integers (PyTorch's values)."))
