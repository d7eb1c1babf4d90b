"""Loop results computed last: a loop-carried number's next value is computed after the
last read of its current value, so the backend writes it straight into the loop variable.

A loop body that computes ``y``'s next value before another value reads the current ``y``
needs two names (``y_1 = ...; ...; y = y_1``); computed after that read, it needs one:

    for i in range(n):                         for i in range(n):
        _t1 = dy * x + y                           dy = dy * x + y + dy * math.cos(y)
        y_1 = y * x + math.sin(y)       ->         y = y * x + math.sin(y)
        dy = _t1 + dy * math.cos(y)
        y = y_1

The ops that compute the next value and are read by nothing else move, in their order, to
right after the last op reading the current value. Only numbers move (they are immutable,
so no write in place between can change what they read), and only past pure ops and tape
ops (which the user cannot observe): a ``print``, an opaque call or a nested region stops
the move, so an exception is never raised in a different order relative to them.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value
from .rewrite import EFFECTS

_TAPE = frozenset({"tape_new", "tape_push", "tape_pop", "tape_len", "list_pop"})


def sink_loop_results(fn: Function) -> None:
    uses = fn.body.use_counts()
    for op in fn.body.walk():
        if op.prim in ("for_range", "while") and op.regions:
            body = op.regions[-1]
            carried = body.params[1:] if op.prim == "for_range" else body.params
            for param, result in zip(carried, body.results):
                _sink(body, param, result, uses)


def _sink(body: Block, param: Value, result: Value, uses: dict[int, int]) -> None:
    ops = body.ops
    if result.op is None or result.op not in ops or uses.get(result.id) != 1:
        return
    tree = _tree(result.op, ops, uses)
    if tree is None:
        return
    position = {id(op): i for i, op in enumerate(ops)}
    reader = {v.id: op for op in ops for v in op.operands()}

    def anchor(op: Op) -> Op:
        # where the backend writes ``op``: a number read once is nested into its reader
        for _ in range(len(ops)):
            if len(op.outputs) != 1 or uses.get(op.out.id) != 1 or op.regions \
                    or op.out.id not in reader or not _number(op.out):
                break
            op = reader[op.out.id]
        return op

    last = -1
    for op in ops:
        if id(op) not in tree and param in _reads(op):
            at = anchor(op)
            last = max(last, position[id(op if id(at) in tree else at)])
    first = min(position[k] for k in tree)
    if last < position[id(result.op)]:
        return
    between = [op for op in ops[first:last + 1] if id(op) not in tree]
    if any(op.regions or (op.prim in EFFECTS and op.prim not in _TAPE) for op in between):
        return
    moved = [op for op in ops if id(op) in tree]
    rest = [op for op in ops if id(op) not in tree]
    at = rest.index(ops[last]) + 1
    body.ops = rest[:at] + moved + rest[at:]


def _tree(root: Op, ops: list[Op], uses: dict[int, int]) -> dict[int, Op] | None:
    """``root`` and the ops of this block only it reads, if all are pure ops on numbers."""
    here = {id(op) for op in ops}
    tree: dict[int, Op] = {}
    todo = [root]
    while todo:
        op = todo.pop()
        if op.regions or op.prim in EFFECTS or op.prim in ("const", "setitem") \
                or len(op.outputs) != 1 or not _number(op.out):
            return None
        if not all(_number(v) for v in op.operands()):
            return None
        tree[id(op)] = op
        for v in op.operands():
            # an operand made by a branch or a loop stays where it is (defined earlier, it
            # may still be read later): a clamp's ``min``/``max`` feeding ``y``'s next value
            if v.op is not None and id(v.op) in here and v.op.prim != "const" \
                    and not v.op.regions and uses.get(v.id) == 1 and id(v.op) not in tree:
                todo.append(v.op)
    return tree


def _number(v: Value) -> bool:
    t = v.type
    return t is not None and (t.is_python_number or t.kind == "scalar")


def _reads(op: Op) -> list[Value]:
    out = list(op.operands())
    for region in op.regions:
        for inner in region.walk():
            out.extend(inner.operands())
        out.extend(region.results)
    return out
