"""``math`` functions of many items (contract v3): ``math.prod``, ``math.hypot`` with any
number of arguments, ``math.dist``.

Like ``math.fsum`` (:mod:`.reductions`), each is its own primitive whose implementation is
the ``math`` function itself (so the value is exactly Python's), made to dispatch. A list
or tuple of values is the array ``np.asarray`` would make of it (the compiler stacks it);
the cotangent goes back in the items' dtype (the ``math`` result is a Python float).

==========  =============================================================================
math_prod   ``math.prod(x, start=s)`` multiplies the items of ``x`` (its rows, for an
            array): ``s * prod_others`` along axis 0, exact with zeros, as ``np.prod``
math_hypot  ``math.hypot(*coords)``: ``g * coords[i] / out``; NaN where every coordinate
            is 0 (0 / 0), as ``np.hypot`` and PyTorch's ``hypot``
dist        ``math.dist(p, q)``: ``g * (p - q) / out``, 0 where ``p == q`` (PyTorch's
            ``dist``, like ``np.linalg.norm`` at 0)
==========  =============================================================================
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import dispatching
from .helpers import unreduce
from .nondiff import dtype_of
from .reductions import fold_axes, prod_others, unfold_axes
from .registry import defrule
from .shape import astype


@dispatching
def math_prod(x: Any, start: Any = 1) -> Any:
    """``math.prod(x, start=start)``, dispatching like NumPy."""
    return math.prod(x, start=start)


@dispatching
def math_hypot(*coords: Any) -> float:
    """``math.hypot(*coords)``, dispatching like NumPy."""
    return math.hypot(*coords)


@dispatching
def dist(p: Any, q: Any) -> float:
    """``math.dist(p, q)``, dispatching like NumPy."""
    return math.dist(p, q)


def _others(x: Any, x_shape: Any) -> Any:
    """Per item of ``x`` (along axis 0), the product of the other items."""
    return unfold_axes(prod_others(fold_axes(x, 0)), x_shape, 0)


def _away_from_zero(g: Any, step: Any, out: Any) -> Any:
    """``g * step / out``, and 0 where ``out == 0`` (a double where: no 0/0 at any order)."""
    zero = np.equal(out, 0)
    return np.where(zero, 0.0, g * step / np.where(zero, 1.0, out))


defrule("math_prod", math_prod, inputs=("x",), params=("start",), form="x, *, start=1",
        aliases=(math.prod,),
        vjp={"x": lambda g, x, x_shape, x_dtype, start:
             astype(unreduce(g, x_shape, 0) * _others(x, x_shape) * start, x_dtype)},
        jvp={"x": lambda t, x, x_shape, start:
             np.sum(t * _others(x, x_shape), axis=0) * start})
defrule("math_hypot", math_hypot, inputs=("coords",), variadic="coords", form="*coords",
        aliases=(math.hypot,),
        vjp={"coords": lambda g, coords, out, i:
             astype(g * coords[i] / out, dtype_of(coords[i]))},
        jvp={"coords": lambda t, coords, out, i: t * coords[i] / out})
defrule("dist", dist, inputs=("p", "q"), aliases=(math.dist,),
        kinks="0 where p == q (PyTorch's dist, like np.linalg.norm at 0).",
        vjp={"p": lambda g, p, q, p_dtype, out:
             astype(_away_from_zero(g, np.subtract(p, q), out), p_dtype),
             "q": lambda g, p, q, q_dtype, out:
             astype(_away_from_zero(g, np.subtract(q, p), out), q_dtype)},
        jvp={"p": lambda t, p, q, out: np.sum(_away_from_zero(t, np.subtract(p, q), out)),
             "q": lambda t, p, q, out: np.sum(_away_from_zero(t, np.subtract(q, p), out))})
