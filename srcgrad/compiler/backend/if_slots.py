"""Backend, ``if`` statements: an output slot named after the value one branch keeps.

Every output of an ``if`` op is a *slot* (:mod:`.control`): each branch assigns it. When
one branch keeps a number computed before the ``if`` (``min``/``max`` of a float, a
clamp, a ``where`` of two scalars), the slot takes that number's own name, so that
branch assigns nothing and disappears, as a person writes a clamp. Before/after (the
emitted tangent of ``min(max(x * y + 0.3, -1.0), 0.9)`` in a loop of one float)::

    _t1 = y + dy * x                          _t1 = y + dy * x
    _t2 = x * y + 0.3                         _t2 = x * y + 0.3
    if _t2 < -1.0:                            if _t2 < -1.0:
        _t3, _t4 = (-1.0), 0.0                    _t2, _t1 = (-1.0), 0.0
    else:                                     if _t2 > 0.9:
        _t3, _t4 = _t2, _t1                       _t2, _t1 = 0.9, 0.0
    if _t3 > 0.9:
        _t5, _t6 = 0.9, 0.0
    else:
        _t5, _t6 = _t3, _t4

The number ``v`` kept by a branch lends its name to output ``k`` only when nothing can
read its old value after the slot is written: ``v`` is defined earlier in the same block
as the ``if`` (not a parameter, not a value of an enclosing block that a later loop trip
reads again), it is read by nothing after the ``if`` nor inside either branch (the other
branch may write the slot before its last op), it is the result of exactly one output of
one branch, and it is a Python number (an array's name may be freed with ``del`` where
it dies, or written in place). The kept branch's ``v = v`` is then left out by
:meth:`.emit._Emitter.assign_slots`, and a branch with nothing to do is not written.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..ir.core import Op, Value, const_value
from .nesting import all_reads


def if_slot_names(em: Any, op: Op) -> list[str]:
    """One name per output of ``if`` op ``op`` (defined in ``em.names``)."""
    block, last_read = em.block_state
    at = next((i for i, o in enumerate(block.ops) if o is op), None)
    lent: dict[int, Value] = {}
    if at is not None:
        lent = _lenders(em, op, block.ops[:at], last_read, at)
    names: list[str] = []
    for k, out in enumerate(op.outputs):
        slot = em.slot_of.get(out.id)
        v = lent.get(k)
        if slot is None and v is not None:
            name = em.names.names.get(v.id)
            if name is not None and name not in names:
                slot = name
        names.append(em.names.define(out, slot))
    return names


def _lenders(em: Any, op: Op, before: list[Op], last_read: dict[int, int],
             at: int) -> dict[int, Value]:
    """Output index -> the value one branch keeps for it that may lend it its name."""
    defined = {o.id for earlier in before for o in earlier.outputs}
    inside = {v.id for region in op.regions for inner in region.ops
              for v in all_reads(inner)}
    kept = Counter(v.id for region in op.regions for v in region.results
                   if isinstance(v, Value))
    out: dict[int, Value] = {}
    for k, result in enumerate(op.outputs):
        if not _python_number(result):
            continue
        for region in op.regions:
            v = region.results[k] if k < len(region.results) else None
            if isinstance(v, Value) and v.id in defined and kept[v.id] == 1 \
                    and v.id not in inside and last_read.get(v.id) == at \
                    and v.id not in em.plan and not const_value(v)[0] \
                    and _python_number(v) and v.type.kind == result.type.kind:
                out[k] = v
                break
    return out


def _python_number(v: Value) -> bool:
    return v.type is not None and v.type.kind in ("float", "int", "bool")
