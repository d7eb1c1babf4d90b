"""Batched forward mode: tangent rows of element-read adjoints added where they belong.

The reverse sweep adds the adjoint of each element read ``x[i]`` into the adjoint of ``x``
as ``scatter_add(g, shape, i)`` (zeros of ``x``'s shape with ``g`` at ``i``); its tangent
rows are ``rows_scatter_add``, zeros of ``(k,) + shape`` per read. In a loop over the
elements (``sg.hessian`` of a scalar loop) every iteration then allocates and adds whole
``(k, n)`` arrays to change a few columns: O(k n) work per read instead of O(k).

Here, right after the batched transform, every sum whose terms include such scatters (a
tree of ``add`` ops read once each) is rewritten as its other terms followed by one
``rows_add_at`` per scatter, which adds the rows at the index into the running sum:

    %47 = rows_scatter_add(t=%46, shape=%0, index=%i)      %50 = rows_add_at(x=%23, t=%46,
    %49 = rows_scatter_add(t=%48, shape=%0, index=%j)  ->            shape=%0, index=%i)
    %50 = add(x=%47, y=%49)                                 %53 = rows_add_at(x=%50, t=%48,
    %53 = add(x=%23, y=%50)                                          shape=%0, index=%j)

``rows_add_at`` computes exactly ``x + rows_scatter_add(t, shape, index)`` (it falls back
to that where ``x`` does not have the result's shape and dtype); the backend writes it into
``x`` itself when nothing else holds ``x`` (``backend/inplace.py``), so the loop's
accumulator is updated in place. Only the order of the additions changes (each element of
the sum is added in another order, as a person writing ``h[:, i] += t`` would).
"""

from __future__ import annotations

from typing import Any

from ..ir.builder import Builder
from ..ir.core import Block, Function, Op, Value
from ..rows import ROW_RULES
from ..symbolic import Sym, record_rule

_SCATTER = ROW_RULES["rows_scatter_add"]
_ADD_AT = ROW_RULES["rows_add_at"]


def add_rows_in_place(fn: Function) -> None:
    uses = fn.body.use_counts()
    for block in _blocks(fn.body):
        _rewrite(block, uses)


def _blocks(block: Block) -> list[Block]:
    out = [block]
    for op in block.ops:
        for region in op.regions:
            out.extend(_blocks(region))
    return out


def _is_add(op: Op | None) -> bool:
    return (op is not None and op.prim == "add" and len(op.outputs) == 1
            and set(op.args) == {"x", "y"}
            and all(isinstance(v, Value) for v in op.args.values()))


def _rewrite(block: Block, uses: dict[int, int]) -> None:
    here = {id(op) for op in block.ops}
    absorbed: set[int] = set()  # adds folded into a later (outer) sum

    def inner(v: Value) -> bool:  # a term computed here for this sum alone
        return v.op is not None and id(v.op) in here and uses.get(v.id) == 1

    def terms(v: Value, out: list[Value], adds: list[Op]) -> None:
        if _is_add(v.op) and inner(v):
            adds.append(v.op)
            terms(v.op.args["x"], out, adds)
            terms(v.op.args["y"], out, adds)
        else:
            out.append(v)

    new_ops: dict[int, list[Op]] = {}
    for op in reversed(block.ops):  # outermost sums first: they take their inner adds
        if id(op) in absorbed or not _is_add(op):
            continue
        leaves: list[Value] = []
        adds: list[Op] = []
        terms(op.args["x"], leaves, adds)
        terms(op.args["y"], leaves, adds)
        # a scatter every read of which is a term here (``x[i] * x[i]``'s adjoint has the
        # same one twice): added as many times as it is a term
        scatters = [v for v in leaves if v.op is not None and id(v.op) in here
                    and v.op.attrs.get("rule") is _SCATTER
                    and uses.get(v.id) == sum(1 for w in leaves if w is v)]
        rest = [v for v in leaves if not any(v is s for s in scatters)]
        if not rest and len(scatters) > 1:
            # a sum of scatters alone (a vectorised function's adjoint of x[1:], x[:-1],
            # ...): the first one's fresh zeros are the array the others are added into
            rest, scatters = scatters[:1], scatters[1:]
        if not scatters or not rest:
            continue
        absorbed.update(id(a) for a in adds)
        new_ops[id(op)] = _chain(op, rest, scatters)
    if not new_ops:
        return
    ops: list[Op] = []
    for op in block.ops:
        ops.extend(new_ops.get(id(op), [op]))
    block.ops = ops  # (the adds and scatters it replaced are dead: DCE drops them)


def _chain(root: Op, rest: list[Value], scatters: list[Value]) -> list[Op]:
    """``sum(rest)`` then each scatter's rows added at its index, the last op writing the
    root's own result value (so its readers are unchanged)."""
    block = Block()
    with Builder(block, line=root.line):
        total = Sym(rest[0])
        for v in rest[1:]:
            total = record_rule(root.attrs["rule"], [total, Sym(v)], {})
        for s in scatters:
            a = s.op.args
            total = record_rule(_ADD_AT, [total, Sym(a["t"]), _sym(a["shape"]),
                                          _sym(a["index"])], {})
            total.value.op.line = total.value.line = s.op.line  # (the read's own line)
    last = block.ops[-1]
    last.outputs = [root.out]
    root.out.op = last
    return block.ops


def _sym(v: Any) -> Any:
    return Sym(v) if isinstance(v, Value) else v
