"""A square the user wrote, reused where derivative code squares the same array.

``t = np.tanh(m) ** 2`` and ``tanh``'s adjoint ``g * (1.0 - out * out)`` both square
``out``; a person writes ``1.0 - t``. Runs before ``cse``, in every block (a square is
found in the block that computes it and in the blocks nested in it)::

    %5 = tanh(x=%m)                            %5 = tanh(x=%m)
    %t = power(x=%5, y=2)              ->      %t = power(x=%5, y=2)
    ...                                        ...
    %30 = multiply(x=%5, y=%5)                 (uses of %30 -> %t)

NumPy computes ``a ** 2`` of an ndarray ``a`` and a Python 2 or 2.0 as ``np.square(a)``,
which is ``a * a`` bit for bit (float16 to float64, infinities and NaN included). So only
a float ndarray of at least one axis qualifies: a 0-d result may be a NumPy scalar, whose
``** 2`` is C's ``pow``, and a Python float's ``** 2`` raises OverflowError where ``*``
gives inf. ``np.square(a)`` written by the user is reused the same way. A square that
nothing else reads (dead code) is left dead.
"""

from __future__ import annotations

import numpy as np

from ..ir.core import Block, Function, Op, Value, const_value
from .rewrite import removable, replace_uses


def reuse_squares(fn: Function) -> None:
    # (a square nothing live reads, a mean's operand when only the gradient is asked for,
    # is not computed: it is not revived to save the adjoint's product)
    live: set[int] = set()
    _live(fn.body, live)
    mapping: dict[Value, Value] = {}
    _block(fn.body, {}, set(fn.params), live, mapping)
    replace_uses(fn, mapping)


def _block(block: Block, squares: dict[int, Value], params: set[Value],
           live: set[int], mapping: dict[Value, Value]) -> None:
    squares = dict(squares)  # (a square of an inner block is not visible after it)
    for op in block.ops:
        for region in op.regions:
            _block(region, squares, params, live, mapping)
        if len(op.outputs) != 1 or op.regions:
            continue
        base = _squared(op)
        if base is None:
            continue
        if op.prim == "multiply":
            known = squares.get(base.id)
            if known is not None:
                mapping[op.out] = known
                continue
        if op.out.id in live and _float_ndarray(base, params):
            squares.setdefault(base.id, op.out)


def _live(block: Block, live: set[int]) -> None:
    """The ids of the values something effectful or a result reads (dce's marking, not
    its sweep; an op with regions and everything in it counts as live)."""
    live.update(r.id for r in block.results)
    for op in reversed(block.ops):
        if removable(op) and not any(o.id in live for o in op.outputs):
            continue
        live.update(v.id for v in op.operands())
        for region in op.regions:
            _live(region, live)


def _squared(op: Op) -> Value | None:
    """``a`` when ``op`` is ``a * a``, ``a ** 2`` (a constant 2 or 2.0) or ``np.square(a)``."""
    a = op.args
    if op.prim == "multiply" and set(a) == {"x", "y"} and a["x"] is a["y"]:
        return a["x"] if isinstance(a["x"], Value) else None
    if op.prim == "power" and set(a) == {"x", "y"} and isinstance(a["y"], Value):
        ok, c = const_value(a["y"])
        if ok and type(c) in (int, float) and c == 2 and isinstance(a["x"], Value):
            return a["x"]
    if op.prim == "square" and set(a) == {"x"} and isinstance(a["x"], Value):
        return a["x"]
    return None


def _float_ndarray(v: Value, params: set[Value]) -> bool:
    """Surely a float ndarray with an axis when it runs: typed so, and a parameter or a
    plain op's result (a loop's or branch's result may be something else on some path)."""
    t = v.type
    if t is None or t.kind != "array" or not t.ndim or t.dtype is None \
            or np.dtype(t.dtype).kind != "f":
        return False
    return v in params if v.op is None else not v.op.regions
