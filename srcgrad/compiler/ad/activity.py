"""Activity analysis: which values need a derivative at all.

A value is *varied* when it depends differentiably on a ``wrt`` parameter (through inputs
that have a VJP, never through integer, bool or constant values, ``stop_gradient`` or
non-differentiable ops), and *useful* when a result depends on it. Only values that are
both (*active*) get adjoints, so int/bool/constant arithmetic and side computations add
nothing to the emitted derivative code.

    def f(x, n):              varied: x, y       useful: y, x, n? (n is an int: never)
        y = x * n             active: {x, y}
        return y.sum()
"""

from __future__ import annotations

from srcgrad.rules import NONDIFF, Rule

from ..ir.core import Block, Function, Op, Value

_STRUCTURAL = ("call", "make_tuple", "make_list", "make_slice")


def rule_of(op: Op) -> Rule | None:
    return op.attrs.get("rule")


def _differentiable_inputs(op: Op) -> list[tuple[str, Value]]:
    """(input name, value) pairs a derivative may flow through."""
    if op.prim in _STRUCTURAL:  # opaque calls and packing: let activity reach them
        return [("args", v) for v in op.operands()]
    rule = rule_of(op)
    if rule is None or rule.kind == NONDIFF:
        return []
    pairs: list[tuple[str, Value]] = []
    for name in rule.inputs:
        if name not in rule.vjp or name not in op.args:
            continue
        a = op.args[name]
        for v in (a if isinstance(a, tuple) else (a,)):
            pairs.append((name, v))
    return pairs


def _can_carry(v: Value) -> bool:
    return not (v.type is not None and v.type.is_integral)


def active_values(fn: Function, wrt: list[Value]) -> set[int]:
    """Ids of the values that are both varied (by ``wrt``) and useful (to the results)."""
    varied = {v.id for v in wrt if _can_carry(v)}
    _forward(fn.body, varied)
    useful = {r.id for r in fn.body.results if isinstance(r, Value)}
    _backward(fn.body, useful)
    return varied & useful


def _forward(block: Block, varied: set[int]) -> None:
    for op in block.ops:
        if any(v.id in varied for _, v in _differentiable_inputs(op)):
            varied.update(o.id for o in op.outputs if _can_carry(o))


def _backward(block: Block, useful: set[int]) -> None:
    for op in reversed(block.ops):
        if any(o.id in useful for o in op.outputs):
            useful.update(v.id for _, v in _differentiable_inputs(op))
