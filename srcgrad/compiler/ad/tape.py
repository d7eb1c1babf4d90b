"""Derivatives of the loop tape, so a reverse pass can itself be differentiated.

A reverse pass through a loop saves primal values on a tape (:mod:`.regions`): the primal
loop's ``tape_push(items)`` is matched by the adjoint loop's ``tape_pop`` whose outputs are
those items again, in reverse iteration order. Differentiating that derived program (for
Hessians) treats the pair as what it is, an identity from each pushed item to the popped
value at the same position:

- forward mode pushes the tangents of the items alongside them (the tape holds
  ``(values..., tangents...)``) and the pop gets them back as extra outputs;
- reverse mode: the adjoint of a pop is a push of the popped values' adjoints onto a
  second tape (made at the top of the function); the adjoint of the push pops them.
  The reverse pass runs the adjoint loop's iterations in the primal's order and the primal
  loop's backwards, so the stack order matches without any bookkeeping.

A pop may read a tape that was itself popped (nested loops: the inner loop's tape is made
per outer iteration and saved on the outer tape), so pushes and pops are paired by the
``tape_new`` they resolve to.

    _tape = []; _dtape = []                      (tape_new, and the reverse pass's own)
    for i in range(n): ...; _tape.append((s, dx))
    for i in reversed(range(n)): s, dx = _tape.pop(); ...   -> _dtape.append((ds, ddx))
                                                             -> ds, ddx = _dtape.pop()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from srcgrad.errors import SrcGradError

from ..ir import types as T
from ..ir.builder import current
from ..ir.core import Block, Function, Op, Value, const_value

TAPE_PRIMS = ("tape_new", "tape_push", "tape_pop", "tape_len", "list_pop")


@dataclass
class Tapes:
    """The pushes and pops of one function, paired by the tape each resolves to."""

    push_of: dict[int, Op] = field(default_factory=dict)  # tape_new output id -> push
    pop_of: dict[int, Op] = field(default_factory=dict)  # tape_new output id -> pop
    new_of: dict[int, Op] = field(default_factory=dict)  # tape_new output id -> tape_new
    # forward mode: push op id -> positions whose tangents were pushed after the items
    tangent_positions: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    # reverse mode: tape_new output id -> (the adjoint tape, positions pushed on it)
    adjoint_tape: dict[int, tuple[Value, list[int]]] = field(default_factory=dict)

    def root(self, tape: Value) -> int:
        """The id of the ``tape_new`` output that ``tape`` is: possibly via pops (a tape
        made per iteration of an outer loop) and ``if`` outputs (a tape made in a branch
        is exported to the adjoint ``if``, ``None`` on the other branches)."""
        op = tape.op
        if op is not None and op.prim == "if":
            k = op.outputs.index(tape)
            for region in op.regions:
                made = region.results[k] if k < len(region.results) else None
                if made is not None and const_value(made) != (True, None):
                    return self.root(made)
            return tape.id
        if op is None or op.prim != "tape_pop":
            return tape.id
        push = self.push_of.get(self.root(op.args["tape"]))
        k = op.outputs.index(tape)
        if push is None or k >= len(push.args["items"]):
            return tape.id
        return self.root(push.args["items"][k])

    def pop_for(self, push: Op) -> Op | None:
        return self.pop_of.get(self.root(push.args["tape"]))

    def push_for(self, pop: Op) -> Op | None:
        return self.push_of.get(self.root(pop.args["tape"]))


def pair_tapes(fn: Function) -> Tapes:
    tapes = Tapes()
    ops = list(fn.body.walk())
    for op in ops:
        if op.prim == "tape_new":
            tapes.new_of[op.out.id] = op
    # pushes first: resolving a pop's tape may go through an outer push
    pending = [op for op in ops if op.prim == "tape_push"]
    for _ in range(len(pending) + 1):
        later = []
        for op in pending:
            tape = op.args["tape"]
            if tape.op is None or tape.op.prim != "tape_pop" or \
                    tapes.root(tape.op.args["tape"]) in tapes.push_of:
                tapes.push_of[tapes.root(tape)] = op
            else:
                later.append(op)
        if not later:
            break
        pending = later
    for op in ops:
        if op.prim == "tape_pop":
            tapes.pop_of[tapes.root(op.args["tape"])] = op
    return tapes


# --- forward mode -------------------------------------------------------------------------

def varied_through(op: Op, varied: set[int], tapes: Tapes) -> None:
    """Activity: a popped value varies when the item pushed at its position does."""
    if op.prim == "tape_push":
        pop = tapes.pop_for(op)
        if pop is None:
            return
        for k, v in enumerate(op.args["items"]):
            if v.id in varied and k < len(pop.outputs):
                varied.add(pop.outputs[k].id)
    elif op.prim == "list_pop" and op.args["list"].id in varied:
        varied.add(op.out.id)


def useful_through(op: Op, useful: set[int], tapes: Tapes) -> None:
    """Activity: a pushed item is useful when the value popped at its position is."""
    if op.prim == "tape_push":
        pop = tapes.pop_for(op)
        if pop is None:
            return
        for k, v in enumerate(op.args["items"]):
            if k < len(pop.outputs) and pop.outputs[k].id in useful:
                useful.add(v.id)
    elif op.prim == "list_pop" and op.out.id in useful:
        useful.add(op.args["list"].id)


def forward_tape_op(op: Op, tangents: dict[int, Value], tapes: Tapes,
                    typed: bool = True, direction: int = 0) -> None:
    """Forward mode: push tangents with the items; pop them with the values (typed like
    them, unless the tangents are batched rows). With several directions each push and
    pop is visited once per direction, in the same order, so the tangents of each
    direction follow the previous ones on the tape."""
    if op.prim == "tape_push":
        items = list(op.args["items"])
        positions = [k for k, v in enumerate(items) if v.id in tangents]
        if positions:
            op.args["items"] = (*items, *(tangents[items[k].id] for k in positions))
            tapes.tangent_positions[id(op), direction] = positions
    elif op.prim == "tape_pop":
        push = tapes.push_for(op)
        positions = tapes.tangent_positions.get((id(push), direction), []) \
            if push is not None else []
        values = list(op.outputs)
        for k in positions:
            t = Value(type=values[k].type if typed else T.ANY)
            t.op = op
            t.adjoint_of = values[k]
            op.outputs.append(t)
            tangents[values[k].id] = t
    elif op.prim == "list_pop":
        lst = op.args["list"]
        if lst.id in tangents:  # the tangent list is popped in step with the list
            t = current().emit("list_pop", {"list": tangents[lst.id]},
                               types=[op.out.type if typed else T.ANY]).out
            t.adjoint_of = op.out
            tangents[op.out.id] = t


# --- reverse mode -------------------------------------------------------------------------

def adjoint_tape(tapes: Tapes, root: int, fn: Function, owner: dict[int, Block]) -> Value:
    """The tape for the adjoints of tape ``root``'s items, made first thing in the function:
    one tape serves every instance of a tape made inside a loop (nested loops), as the
    reverse pass visits them in exactly the reverse order of their pops."""
    if root not in tapes.adjoint_tape:
        made = Op("tape_new", {}, [Value(name="dtape", type=T.STATIC)],
                  line=tapes.new_of[root].line)
        fn.body.ops.insert(0, made)
        owner[made.out.id] = fn.body
        tapes.adjoint_tape[root] = (made.out, [])
    return tapes.adjoint_tape[root][0]


def backprop_tape_op(scope: Any, op: Op) -> None:
    """Reverse mode through a tape op, in ``scope`` (a :class:`.scope.Scope`)."""
    tapes: Tapes = scope.fn.meta["tapes"]
    if op.prim == "tape_pop":
        adjoints = [(k, scope.table[o.id]) for k, o in enumerate(op.outputs)
                    if o.id in scope.table]
        if not adjoints:
            return
        root = tapes.root(op.args["tape"])
        if root not in tapes.new_of:
            raise SrcGradError("internal: a tape pop whose tape_new was not found",
                               filename=scope.fn.filename, lineno=op.line)
        dtape = adjoint_tape(tapes, root, scope.fn, scope.owner)
        positions = tapes.adjoint_tape[root][1]
        positions[:] = [k for k, _ in adjoints]
        scope.builder.emit("tape_push", {"tape": scope.visible(dtape),
                                         "items": tuple(a for _, a in adjoints)}, n_out=0)
    elif op.prim == "tape_push":
        root = tapes.root(op.args["tape"])
        if root not in tapes.adjoint_tape:
            return
        dtape, positions = tapes.adjoint_tape[root]
        pop = scope.builder.emit("tape_pop", {"tape": scope.visible(dtape)},
                                 types=[T.ANY] * len(positions), n_out=len(positions))
        for k, ct in zip(positions, pop.outputs):
            item = op.args["items"][k]
            if item.id in scope.active:
                scope.accumulate(item, ct)
    elif op.prim == "list_pop" and op.out.id in scope.table:
        raise SrcGradError(
            "reverse mode through the reverse pass of a loop that collects a list "
            "(sg.grad of sg.grad through `xs.append(...)` in a loop) is not supported.",
            filename=scope.fn.filename, lineno=op.line,
            advice="Use forward-over-reverse: sg.jvp(sg.grad(f)) or sg.hessian(f).")


def pushes_adjoints(scope: Any, op: Op) -> bool:
    """Whether region op ``op`` pushes onto a tape whose pops got adjoints: its adjoint
    must run to pop them even when none of its outputs has an adjoint."""
    tapes: Tapes = scope.fn.meta["tapes"]
    return any(inner.prim == "tape_push" and tapes.root(inner.args["tape"])
               in tapes.adjoint_tape for region in op.regions for inner in region.walk())
