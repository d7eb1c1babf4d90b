"""Shared machinery for passes: replacing values, and which ops must stay.

A pass collects ``old value -> new value`` replacements and applies them once with
:func:`replace_uses` (chains such as a -> b -> c are followed), so a pass is linear in the
size of the function.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import (
    PYTHON_SPELLING,
    USER_ARITHMETIC,
    USER_CHECK,
    Block,
    Function,
    Op,
    Value,
    const_value,
)

# Ops kept even when their results are unused: they act on the world or may raise.
EFFECTS = frozenset({"print", "assert", "raise", "call",
                     "tape_new", "tape_push", "tape_pop", "tape_len", "list_pop"})


# ``math.*`` twins (and ``abs``) that never raise on a number, whatever its value.
_SAFE_MATH = frozenset({"absolute", "arctan", "arctan2", "tanh", "arcsinh", "cbrt", "erf",
                        "erfc", "deg2rad", "rad2deg"})
# The user's Python operators that raise on Python numbers (``1.0 / 0.0``, ``0.0 ** -1``,
# ``1e200 ** 2``, ``5 % 0``); on NumPy values they give inf or nan instead.
_RAISING_OPERATORS = frozenset({"divide", "power", "remainder", "floor_divide"})


def is_pure(op: Op) -> bool:
    """No effects and no regions: CSE may merge it with an equal op (a pure op may still
    raise, see :func:`removable`)."""
    return op.prim not in EFFECTS and not op.regions


def may_raise(op: Op) -> bool:
    """The user's own Python arithmetic that may raise on its operands: a ``math.*`` call
    (``math.log(-1.0)``, ``math.exp(1000.0)``, ``math.sqrt`` of a negative NumPy scalar) or
    a raising operator on Python numbers. Derivative code never counts: a derivative must
    raise where the user's function raises, not where srcgrad's own formulas would. Also
    the user's unread ops that may raise on a shape or value (``USER_CHECK``)."""
    if op.attrs.get(USER_CHECK):
        return True
    spelled = op.attrs.get(PYTHON_SPELLING)
    if not spelled or not op.attrs.get(USER_ARITHMETIC):
        return False
    if spelled == "math":
        return op.prim not in _SAFE_MATH
    if op.prim not in _RAISING_OPERATORS or not all(
            v.type is None or v.type.is_python_number for v in op.operands()):
        return False
    known, c = const_value(op.args["y"]) if isinstance(op.args.get("y"), Value) else (False, 0)
    if not known or isinstance(c, bool) or not isinstance(c, (int, float)):
        return True
    if op.prim == "power":  # (a root cannot overflow; ``0.0 ** -1`` divides by zero)
        return not 0 <= c <= 1
    return c == 0  # a division by a non-zero constant gives inf or nan, never raises


def removable(op: Op) -> bool:
    """Dead code elimination may drop ``op`` when nothing reads its results."""
    return is_pure(op) and not may_raise(op)


def replace_uses(fn: Function, mapping: dict[Value, Value]) -> None:
    if not mapping:
        return

    def final(v: Value) -> Value:
        seen = 0
        while v in mapping and seen < 1000:
            v = mapping[v]
            seen += 1
        return v

    def fix(a: Any) -> Any:
        if isinstance(a, tuple):
            return tuple(fix(x) for x in a)
        if isinstance(a, Value):
            return final(a)
        return a

    def block(b: Block) -> None:
        for op in b.ops:
            op.args = {k: fix(a) for k, a in op.args.items()}
            for r in op.regions:
                block(r)
        b.results = [fix(r) for r in b.results]

    block(fn.body)


def length_read(op: Op) -> tuple[Value, int] | None:
    """``(v, k)`` when ``op`` is ``getitem(shape(v), k)`` with ``k`` a constant int: one
    length of ``v``'s shape (hoisted out of loops, read from a product's operand)."""
    if op.prim != "getitem" or len(op.outputs) != 1:
        return None
    shape, index = op.args.get("x"), op.args.get("index")
    if not isinstance(shape, Value) or shape.op is None or shape.op.prim != "shape" \
            or not isinstance(index, Value):
        return None
    known, k = const_value(index)
    v = shape.op.args.get("x")
    if not known or type(k) is not int or not isinstance(v, Value):
        return None
    return v, k
