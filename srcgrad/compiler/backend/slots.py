"""Backend: which results of a loop or branch body are computed straight into their slot.

Where it sits: the emitter (``emit.py``) asks, per block with slots (a loop's carried
names, an ``if``'s outputs), which results an op may assign to the slot's name directly
(``hi = mid`` rather than ``hi_1 = mid ... hi = hi_1``): those whose slot's previous value
is not read afterwards.
"""

from __future__ import annotations

from ..ir.core import Block, Op, Value
from . import control
from .nesting import all_reads, read_positions


def direct_results(block: Block, slots: list[str], carried: list[Value] | None,
                   appended: list[Value], plan: dict[int, int]) -> dict[int, str]:
    """Results defined by a plain op of ``block`` that can be computed straight into their
    slot name: that slot's previous value (its carried parameter) is not read afterwards,
    nor needed by another slot's final assignment."""
    position = {o.id: i for i, op in enumerate(block.ops) for o in op.outputs}
    last_read: dict[int, int] = {}
    for i, v in read_positions(block, plan):
        last_read[v.id] = max(i, last_read.get(v.id, i))
    for v in appended:  # appended after the ops
        last_read[v.id] = len(block.ops)
    direct: dict[int, str] = {}
    for k, (r, name) in enumerate(zip(block.results, slots)):
        i = position.get(r.id)
        if i is None or r.id in direct or block.ops[i].prim == "const" \
                or block.ops[i].prim in control.TAPE_PRIMS:
            continue
        if block.ops[i].regions and (carried is None or not branch_into_slot(
                block.ops[i], r, carried[k])):
            continue
        if carried is not None:
            p = carried[k]
            if last_read.get(p.id, -1) > i or any(
                    rj is p for j, rj in enumerate(block.results) if j != k):
                continue
        direct[r.id] = name
    return direct


def branch_into_slot(op: Op, out: Value, previous: Value) -> bool:
    """Whether the ``if`` making the loop's next value ``out`` may write it straight into
    the loop's slot (``if c: hi = mid`` rather than ``hi_1 = mid ... hi = hi_1``): neither
    branch reads the slot's previous value, except to keep it as that very output (an
    assignment of the slot to itself, left out)."""
    if op.prim != "if":
        return False
    k = op.outputs.index(out)
    for region in op.regions:
        if any(v is previous for j, v in enumerate(region.results) if j != k):
            return False
        if any(v is previous for inner in region.ops for v in all_reads(inner)):
            return False
    return True
