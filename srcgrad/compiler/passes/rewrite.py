"""Shared machinery for passes: replacing values, and which ops must stay.

A pass collects ``old value -> new value`` replacements and applies them once with
:func:`replace_uses` (chains such as a -> b -> c are followed), so a pass is linear in the
size of the function.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block, Function, Op, Value, const_value

# Ops kept even when their results are unused: they act on the world or may raise.
EFFECTS = frozenset({"print", "assert", "raise", "call",
                     "tape_new", "tape_push", "tape_pop", "tape_len", "list_pop"})


def is_pure(op: Op) -> bool:
    return op.prim not in EFFECTS and not op.regions


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
