"""Sorting: ``np.sort`` (values) and the runtime's ``t.sort()`` values.

The sorted values are the input's elements gathered in the order a *stable* argsort gives
(``sort_order``, zero derivative), so the cotangent of the values scatters back through
that order and the tangent is gathered by it:

===========  ===================================================================
sort         ``np.sort(x, axis)``: VJP ``sort_scatter(g, sort_order(x, axis), ...)``,
             JVP ``sort_gather(t, sort_order(x, axis), axis)``
sort_values  ``t.sort(dim, descending)[0]`` (runtime, ``SortBackward0``): likewise
sort_gather  ``c`` in a given order along ``axis`` (linear; adjoint ``sort_scatter``)
sort_scatter ``c`` put back to the positions an order names (linear; adjoint
             ``sort_gather``)
===========  ===================================================================

Ties: tied elements are equal, so the sorted values do not depend on how they are
ordered, but the derivative does. srcgrad sends the gradient of each sorted position to
the one input element a stable sort puts there (tied elements keep their order: the
earlier one takes the earlier position); the gradient is never split among ties.
``axis=None`` sorts the flattened array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching, foreign
from .registry import LINEAR, NONDIFF, defrule


@dispatching
def sort_order(x: Any, axis: Any, descending: bool = False) -> Any:
    """Stable argsort of ``x`` along ``axis`` (None: flattened); ``descending`` keeps tied
    elements in their order too."""
    x = as_array(x)
    if axis is None:
        x, axis = np.ravel(x), -1
    if descending:
        x = -(x.astype(np.int64) if x.dtype == np.bool_ else x)
    return np.argsort(x, axis=axis, kind="stable")


@dispatching
def sort_gather(c: Any, order: Any, axis: Any) -> Any:
    """``c``'s elements in ``order`` along ``axis`` (None: of the flattened ``c``)."""
    c = as_array(c)
    if axis is None:
        return np.ravel(c)[order]
    return np.take_along_axis(c, order, axis)


@dispatching
def sort_scatter(c: Any, order: Any, shape: Any, axis: Any) -> Any:
    """Zeros of ``shape`` with ``c`` put back where ``order`` took each element from."""
    c = as_array(c)
    if foreign(c) or foreign(order):  # (no host zeros to write into: the inverse order)
        if axis is None:
            return np.reshape(np.ravel(c)[np.argsort(np.ravel(order))], tuple(shape))
        return np.take_along_axis(c, np.argsort(order, axis=axis), axis)
    out = np.zeros(tuple(shape), dtype=c.dtype)
    if axis is None:
        out.reshape(-1)[order] = c  # an order is a permutation: no position twice
    else:
        np.put_along_axis(out, order, c, axis)
    return out


defrule("sort_order", sort_order, inputs=("x",), params=("axis", "descending"), kind=NONDIFF,
        form="x, axis, descending=False")
defrule("sort_gather", sort_gather, inputs=("c", "order"), params=("axis",), kind=LINEAR,
        vjp={"c": lambda g, c_shape, order, axis: sort_scatter(g, order, c_shape, axis)})
defrule("sort_scatter", sort_scatter, inputs=("c", "order"), params=("shape", "axis"),
        kind=LINEAR, vjp={"c": lambda g, order, axis: sort_gather(g, order, axis)})
defrule("sort", np.sort, inputs=("x",), params=("axis", "kind"), form="x, axis=-1, kind=None",
        vjp={"x": lambda g, x, x_shape, axis: sort_scatter(
            g, sort_order(x, axis, False), x_shape, axis)},
        jvp={"x": lambda t, x, axis: sort_gather(t, sort_order(x, axis, False), axis)},
        torch=("SortBackward0", 1))


@dispatching
def sort_values(x: Any, axis: Any = -1, descending: bool = False) -> Any:
    """The values of ``t.sort(dim, descending)``."""
    return sort_gather(x, sort_order(x, axis, descending), axis)


defrule("sort_values", sort_values, inputs=("x",), params=("axis", "descending"),
        form="x, axis=-1, descending=False",
        vjp={"x": lambda g, x, x_shape, axis, descending: sort_scatter(
            g, sort_order(x, axis, descending), x_shape, axis)},
        jvp={"x": lambda t, x, axis, descending: sort_gather(
            t, sort_order(x, axis, descending), axis)}, torch=("SortBackward0", 1))
