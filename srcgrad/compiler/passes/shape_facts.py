"""Shape facts of reductions along constant axes, for the shape classes (``shapes.py``).

- ``kept_reduction(op)``: ``op`` reduces its one input ``x`` with ``keepdims=True``, so its
  result *fits* ``x``'s shape (same rank, the reduced axes of length 1): an elementwise op
  of ``x`` and it, ``z - np.max(z, 1, keepdims=True)``, has ``x``'s shape;
- ``kept_axes_index(op, rank, ndim)``: for ``unreduce(g, shape(v), axis, keepdims)``, the
  basic index that puts ``g`` (of ``rank``) back at ``v``'s ``ndim`` with the reduced axes
  of length 1, ``(slice(None), None)`` for ``g[:, None]``: a view that broadcasts against
  a full-shaped partner exactly as the materialised ``np.broadcast_to`` would::

      %8 = unreduce(x=%6, shape=%7, axis=1, keepdims=False)   %8 = getitem(x=%6, (:, None))
      %9 = multiply(x=%8, y=%5)          # %5 ~ %7's value  ->  %9 = multiply(x=%8, y=%5)
"""

from __future__ import annotations

from typing import Any

from ...rules.registry import RULES
from ..ir.core import Op, Value, const_value


def kept_reduction(op: Op) -> bool:
    """A reduction of one input ``x`` of known rank with a constant ``keepdims=True``."""
    rule = RULES.get(op.prim)  # (``unreduce`` takes a ``shape``: it broadcasts up)
    if rule is None or rule.inputs != ("x",) or not {"axis", "keepdims"} <= set(rule.params) \
            or "shape" in rule.params \
            or len(op.outputs) != 1 or op.regions or not isinstance(op.args.get("x"), Value):
        return False
    keep = op.args.get("keepdims")
    x = op.args["x"]
    return isinstance(keep, Value) and const_value(keep) == (True, True) and \
        x.type is not None and x.type.known_ndim is not None


def kept_axes_index(op: Op, rank: int, ndim: int) -> tuple[Any, bool] | None:
    """``(index, False)``, or ``(None, True)`` when ``g`` broadcasts as it is (keepdims, or
    a number), for ``unreduce`` ``op`` along constant axes of a cotangent of ``rank``
    (that of ``v`` less the axes, or all of it with ``keepdims``); else None."""
    is_axis, axis = const_value(op.args["axis"]) if isinstance(op.args.get("axis"), Value) \
        else (False, None)
    is_keep, keepdims = const_value(op.args["keepdims"]) \
        if isinstance(op.args.get("keepdims"), Value) else (True, False)
    if not (is_axis and is_keep) or axis is None or not isinstance(keepdims, bool):
        return None
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        return None
    if rank != ndim - (0 if keepdims else len(axes)):
        return None
    if keepdims or rank == 0:  # (a number broadcasts as it is)
        return None, True
    kept = {a % ndim for a in axes}
    if len(kept) != len(axes):
        return None
    index = tuple(None if i in kept else slice(None) for i in range(ndim))
    while index and index[-1] == slice(None):  # ``g[:, None]``, not ``g[:, None, :]``
        index = index[:-1]
    return index, False
