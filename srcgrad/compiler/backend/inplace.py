"""When a functional ``setitem`` can be emitted as an in-place write ``y[i] = v``, and
another copying primitive as its in-place form (``IN_PLACE_FORMS``: ``rows_add_at``).

Lowering turns ``y[i] = v`` into ``y_1 = setitem(y, v, i)`` (a copy), which keeps the
IR pure and the derivative right. Emitting a copy per write costs O(size) though (O(n^2)
for a loop filling an array), so the backend writes in place when nothing can notice:

- ``y`` owns its storage: made by ``np.zeros_like``/``copy``/... or an earlier
  ``setitem``, or a loop-carried array whose initial value is such an array and dies at
  the loop (and which the loop's tape never saves);
- neither ``y`` nor any view of it is read after the write (liveness over the block, uses
  inside nested regions included).
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block, Op, Value, const_value
from ..rows import IN_PLACE_FORMS

__all__ = ["IN_PLACE_FORMS", "can_write_in_place", "fresh_loop_params", "owns_storage",
           "storage_chain"]


def _inner_ops(block: Block) -> list[Op]:
    out = []
    for op in block.ops:
        out.append(op)
        for r in op.regions:
            out.extend(_inner_ops(r))
    return out


def owns_storage(v: Value, fresh_params: set[int]) -> bool:
    if v.id in fresh_params:
        return True
    rule = v.op.attrs.get("rule") if v.op is not None else None
    return rule is not None and rule.fresh


def storage_chain(block: Block, root: Value, writer: Op | None = None) -> set[int]:
    """Ids of ``root`` and of every value of ``block`` that may share its memory; not
    followed through ``writer`` (a write into ``root`` in place: what is made from its
    result, such as the next write of ``z[0] = a; z[1] = b``, reads the written array as
    it should, never a stale view of ``root``)."""
    chain = {root.id}
    changed = True
    ops = [op for op in _inner_ops(block) if op is not writer]
    while changed:
        changed = False
        for op in ops:
            first = next(iter(op.operands()), None)
            if first is None or first.id not in chain:
                continue
            rule = op.attrs.get("rule")
            # a view, or a setitem (or another in-place form) that may be emitted as a
            # write into its operand
            if rule is not None and (rule.view or rule.name == "setitem"
                                     or rule.name in IN_PLACE_FORMS):
                for o in op.outputs:
                    if o.id not in chain and not _holds_a_scalar(o):
                        chain.add(o.id)
                        changed = True
    return chain


def _holds_a_scalar(v: Value) -> bool:
    """A NumPy scalar or Python number (``y[0]`` of a 1-d ``y``) shares no memory."""
    t = v.type
    return t is not None and (t.kind == "scalar" or t.is_python_number)


def can_write_in_place(op: Op, index: int, block: Block, last_read: dict[int, int],
                       fresh_params: set[int], params: list[Value]) -> bool:
    x = op.args["x"]
    if not isinstance(x, Value) or const_value(x)[0] or x in params:
        return False
    if not owns_storage(x, fresh_params):
        return False
    if last_read.get(x.id, -1) > index:
        return False
    views = storage_chain(block, x, op) - {x.id}
    return all(last_read.get(v, -1) <= index for v in views)


def fresh_loop_params(op: Op, slots: list[str], names: Any, last_use_index: Any,
                      fresh_params: set[int]) -> None:
    """Mark a loop's carried arrays that may be written in place inside its body."""
    body = op.regions[-1]
    carried = body.params[1:] if op.prim == "for_range" else body.params
    pushed: set[int] = set()
    for inner in _inner_ops(body):
        if inner.prim == "tape_push":
            pushed.update(v.id for v in inner.args["items"])
    for init, param, slot in zip(op.args["init"], carried, slots):
        if names.names.get(init.id) != slot or not owns_storage(init, fresh_params):
            continue
        if not last_use_index(init):
            continue
        if storage_chain(body, param) & pushed:
            continue
        fresh_params.add(param.id)
