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

- ``elementwise(op)``: a table rule of kind elementwise without parameters;
- ``rank0(v)``: ``v`` is one number, whatever the shapes around it.
"""

from __future__ import annotations

from typing import Any

from ...rules.registry import ELEMENTWISE, RULES
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


def elementwise(op: Op) -> bool:
    rule = RULES.get(op.prim)
    return (rule is not None and rule.kind == ELEMENTWISE and not rule.params
            and not rule.user and not op.regions and len(op.outputs) == 1)


def rank0(v: Value, decided: dict[int, bool] | None = None) -> bool:
    """``v`` is one number (a Python number, a NumPy scalar or a 0-d array): typed so, a
    reduced count, one length of a shape, or an elementwise op of such numbers. Walked
    with a stack, each value decided once (in ``decided``, kept across the calls of one
    walk by :class:`Classes`): recursion was exponential on values read twice (a 100-line
    function hit the recursion limit)."""
    decided = {} if decided is None else decided
    todo = [v]
    while todo:
        w = todo[-1]
        if w.id in decided:
            todo.pop()
            continue
        known = _rank0_alone(w)
        if known is not None:
            decided[w.id] = known
            todo.pop()
            continue
        # an elementwise op: its operands decide, in order, the first not a number
        # deciding it (as ``all`` stops)
        answer: bool | None = True
        for u in w.op.operands():
            if u.id not in decided:
                todo.append(u)
                answer = None
                break
            if not decided[u.id]:
                answer = False
                break
        if answer is not None:
            decided[w.id] = answer
            todo.pop()
    return decided[v.id]


def _rank0_alone(v: Value) -> bool | None:
    """:func:`rank0` from ``v`` and its op alone, or None when its operands decide."""
    if v.op is not None and v.op.prim == "reduced_count":
        return True  # a Python int
    if v.type is not None and v.type.known_ndim == 0:
        return True
    op = v.op
    if op is not None and op.prim == "getitem":
        # one length of a shape (``q.shape[-1]``): a Python int, so ``s / np.sqrt(n)``
        # keeps ``s``'s class
        index = op.args.get("index")
        if isinstance(index, Value):
            index = const_value(index)[1]
        if type(index) is not int:
            return False
        x = op.args.get("x")
        return isinstance(x, Value) and x.op is not None and x.op.prim == "shape"
    if op is None or not elementwise(op):
        return False
    return None
