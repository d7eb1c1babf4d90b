"""``np.gradient``: central differences in the interior, one-sided differences at the edges.

Where it sits: in the rule table (bottom layer); the public function is a :mod:`.multi`
record, because without ``axis`` an N-d array gives a tuple of N arrays (one per axis) and
a 1-d array (or one axis) gives the array itself, as NumPy does.

Each item is ``gradient_along(f, spacing, axis, edge_order)``: NumPy's gradient of ``f``
along one axis, with ``spacing`` a number (uniform steps) or the 1-d coordinates along that
axis. It is linear in ``f``: ``out = D f`` along ``axis`` for a matrix ``D`` with three
entries a row (``i-1, i, i+1`` inside; the first and last three columns in the two edge
rows). So forward mode is the function itself on the tangent and reverse mode is ``D^T``:

================  ===================================================================
gradient_along    f: ``gradient_adjoint(g, spacing, axis, edge_order)`` (linear)
gradient_adjoint  c: ``gradient_along(g, spacing, axis, edge_order)`` (linear): ``D^T c``
================  ===================================================================

``D``'s entries are read from NumPy itself (so the two never disagree on a formula): no two
columns ``j`` and ``j + 3`` share a row, so ``D`` applied to the three combs ``[j % 3 == r]``
gives every entry, ``D[i, j] = (D comb_{j % 3})[i]`` for each ``j`` in row ``i``'s reach.
That costs three 1-d gradients of the axis' length. The spacing is a static parameter: a
spacing computed from the differentiated argument is refused (no derivative for it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .multi import Item, ItemCountUnknown, defmulti
from .registry import LINEAR, defrule


@dispatching
def gradient_along(f: Any, spacing: Any, axis: int, edge_order: int) -> Any:
    """``np.gradient(f, spacing, axis=axis, edge_order=edge_order)`` (one axis)."""
    return np.gradient(f, spacing, axis=axis, edge_order=edge_order)


def _stencil(n: int, spacing: Any, edge_order: int) -> np.ndarray:
    """``P[r] = D @ [j % 3 == r]`` for the length-``n`` axis (see the module docstring)."""
    combs = (np.arange(n)[None, :] % 3 == np.arange(3)[:, None]).astype(np.float64)
    return np.gradient(combs, np.asarray(spacing, dtype=np.float64), axis=1,
                       edge_order=edge_order)


@dispatching
def gradient_adjoint(c: Any, spacing: Any, axis: int, edge_order: int) -> Any:
    """``D^T c`` along ``axis``: the cotangent of ``f`` for the cotangent ``c`` of
    ``gradient_along(f, spacing, axis, edge_order)``."""
    c = np.asarray(c)
    work = np.moveaxis(c, axis, -1)
    n = work.shape[-1]
    p = _stencil(n, spacing, edge_order)
    out = np.zeros(work.shape, dtype=np.result_type(work.dtype, np.float32))
    rows = np.arange(1, n - 1)
    for k in (-1, 0, 1):  # interior row i reaches columns i - 1, i, i + 1 (distinct per k)
        cols = rows + k
        out[..., cols] += p[cols % 3, rows] * work[..., rows]
    for row, cols in ((0, range(0, 3)), (n - 1, range(n - 3, n))):  # the edge rows
        for j in cols:
            if 0 <= j < n:
                out[..., j] += p[j % 3, row] * work[..., row]
    return np.moveaxis(out, -1, axis)


defrule("gradient_along", gradient_along, inputs=("f",),
        params=("spacing", "axis", "edge_order"), kind=LINEAR,
        form="f, spacing, axis, edge_order",
        vjp={"f": lambda g, spacing, axis, edge_order:
             gradient_adjoint(g, spacing, axis, edge_order)})
defrule("gradient_adjoint", gradient_adjoint, inputs=("c",),
        params=("spacing", "axis", "edge_order"), kind=LINEAR,
        form="c, spacing, axis, edge_order",
        vjp={"c": lambda g, spacing, axis, edge_order:
             gradient_along(g, spacing, axis, edge_order)})


def _gradient_items(env: dict[str, Any], ndims: dict[str, int | None]) -> list[Item]:
    ndim = ndims["f"]
    axis, varargs = env["axis"], list(env["varargs"])
    if ndim is None:
        raise ItemCountUnknown(
            "np.gradient: the number of arrays it returns depends on the array's number of "
            "dimensions, which is not known when the function is compiled.",
            "Pass an array of known dimensions, or give axis= explicitly.")
    if axis is None:
        axes = list(range(ndim))
    elif isinstance(axis, (tuple, list)):
        axes = [int(a) % ndim for a in axis]
    else:
        axes = [int(axis) % ndim]
    if len(set(axes)) != len(axes):
        raise ValueError("np.gradient: an axis is repeated")
    if not varargs:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1:  # one spacing for every axis (NumPy requires it be a number
        spacings = varargs * len(axes)  # when there are several axes)
    elif len(varargs) == len(axes):
        spacings = varargs
    else:
        raise TypeError(f"np.gradient: {len(varargs)} spacings given for {len(axes)} axes; "
                        "give none, one, or one per axis")
    edge_order = env["edge_order"]
    if isinstance(edge_order, int) and edge_order not in (1, 2):  # (NumPy checks a traced one)
        raise ValueError("np.gradient: edge_order must be 1 or 2")
    return [Item("gradient_along", {"f": env["f"], "spacing": s, "axis": a,
                                    "edge_order": edge_order})
            for s, a in zip(spacings, axes)]


def _gradient_result(items: list[Any]) -> Any:
    return items[0] if len(items) == 1 else tuple(items)


defmulti("gradient", np.gradient, form="f, *varargs, axis=None, edge_order=1", inputs=("f",),
         item_rules=("gradient_along",), items=_gradient_items, result=_gradient_result)
