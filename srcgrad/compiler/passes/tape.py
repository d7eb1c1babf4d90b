"""Loop tapes: each value is saved once per iteration.

After CSE two saved values can be the same value (``a * x`` computed for ``cos`` and again
for ``sin``); the push then holds it twice. The duplicate is dropped from the push and its
popped copy replaced by the first one:

    tape_push(tape=%t, items=(%dfx, %ax, %x, %ax))        tape_push(tape=%t, items=(%dfx, %ax, %x))
    %d, %a1, %x1, %a2 = tape_pop(tape=%t)          ->    %d, %a1, %x1 = tape_pop(tape=%t)
                                                         (uses of %a2 -> %a1)

A pop is paired with its push through the tape value, which for a nested loop is itself
popped from the enclosing loop's tape. Anything that cannot be paired is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir.core import Block, Function, Op, Value
from .rewrite import replace_uses


def _ops(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from _ops(region)


def dedupe_tape(fn: Function) -> None:
    ops = list(_ops(fn.body))
    pushes: dict[int, list[Op]] = {}
    for op in ops:
        if op.prim == "tape_push":
            pushes.setdefault(op.args["tape"].id, []).append(op)

    def origin(v: Value, depth: int = 0) -> Value | None:
        if v.op is None or v.op.prim != "tape_pop":
            return v
        push = pair(v.op, depth + 1)
        if push is None or depth > 50:
            return None
        return origin(push.args["items"][v.op.outputs.index(v)], depth + 1)

    def pair(pop: Op, depth: int = 0) -> Op | None:
        tape = origin(pop.args["tape"], depth)
        found = pushes.get(tape.id, []) if tape is not None else []
        if len(found) != 1 or len(found[0].args["items"]) != len(pop.outputs):
            return None
        return found[0]

    pops = [op for op in ops if op.prim == "tape_pop" and op.outputs]
    pairs = [(pop, pair(pop)) for pop in pops]
    paired: dict[int, int] = {}
    for _, push in pairs:
        if push is not None:
            paired[id(push)] = paired.get(id(push), 0) + 1
    mapping: dict[Value, Value] = {}
    for pop, push in pairs:
        if push is None or paired[id(push)] != 1:
            continue
        first: dict[int, int] = {}
        keep = []
        for k, v in enumerate(push.args["items"]):
            if v.id in first:
                mapping[pop.outputs[k]] = pop.outputs[first[v.id]]
            else:
                first[v.id] = k
                keep.append(k)
        if len(keep) < len(push.args["items"]):
            push.args["items"] = tuple(push.args["items"][k] for k in keep)
            pop.outputs = [pop.outputs[k] for k in keep]
    replace_uses(fn, mapping)
