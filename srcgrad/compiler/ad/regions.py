"""Reverse mode through ``if`` and loops (DESIGN.md principles 5-6).

``if``: the adjoint is an ``if`` on the same condition; each branch backpropagates its
primal branch and yields its contributions to values defined outside (zeros where the
other branch contributes). Primal values of a branch that its adjoint reads are exported
as extra outputs of the primal ``if`` (``None`` on the other branch).

Loops: the adjoint loop runs the body's adjoint over the same range reversed (``for``
indices are recomputed, not stored) carrying the adjoints of the loop-carried values and
the accumulated adjoints of outer values the body reads. The primal values the adjoint
body reads are exactly what the primal body pushes onto a tape (a list made before the
loop), one tuple per iteration; the adjoint body pops them. A ``while`` loop's adjoint
runs ``len(tape)`` times, so data-dependent trip counts work. Differentiating such a
derived program again (Hessians) goes through the tape ops' own derivatives, in
:mod:`.tape`; the adjoint of an adjoint loop runs forwards.

    for i in range(n):            _tape = []
        s = s * x[i]              for i in range(n): _t = x[i]; s_1 = s * _t; _tape.append((s, _t))
                                  for i in reversed(range(n)): s, _t = _tape.pop(); ...
"""

from __future__ import annotations

from typing import Any

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Block, Op, Value, checkpoint_mark
from ..symbolic import Sym, record_rule
from .checkpoint import groups, recompute
from .scope import Scope
from .tape import backprop_tape_op, pushes_adjoints


def backprop_block(scope: Scope) -> None:
    backprop_ops(scope, list(scope.primal.ops))


def backprop_ops(scope: Scope, ops: list[Op]) -> None:
    """The adjoint of ``ops`` (of ``scope.primal``), walked backwards."""
    checkpointed = groups(ops, scope.active)
    handled: set[int] = set()
    for op in reversed(ops):
        mark = checkpoint_mark(op)
        token = mark[1] if mark is not None and mark[0] == "primal" else None
        if token in handled:
            continue
        if token is not None and token in checkpointed:
            handled.add(token)  # met at its last op: the whole call, recomputed
            with scope.builder.at_line(op.line):
                recompute(scope, checkpointed[token], backprop_ops)
            continue
        if op.prim in ("tape_pop", "tape_push", "list_pop"):
            with scope.builder.at_line(op.line):
                backprop_tape_op(scope, op)
            continue
        if not any(o.id in scope.table for o in op.outputs) and not (
                op.regions and pushes_adjoints(scope, op)):
            continue
        with scope.builder.at_line(op.line):
            if op.prim == "if":
                backprop_if(scope, op)
            elif op.prim in ("for_range", "while"):
                backprop_loop(scope, op)
            else:
                scope.backprop_op(op)


def _child(parent: Scope, primal: Block, block: Block, local: Any) -> Scope:
    builder = Builder(block, line=parent.builder.line)
    return Scope(parent.fn, primal, builder, parent.active, parent.owner, parent, local)


# --- if ------------------------------------------------------------------------------------

def backprop_if(scope: Scope, op: Op) -> None:
    douts = [(k, scope.table[o.id]) for k, o in enumerate(op.outputs) if o.id in scope.table]
    branches: list[tuple[Block, Scope]] = []
    for k, region in enumerate(op.regions):
        block = Block()
        child = _child(scope, region, block, lambda v, k=k: _export_from_if(scope, op, k, v))
        with child.builder:
            for j, d in douts:
                child.accumulate(region.results[j], d)
            backprop_block(child)
        branches.append((block, child))
    free: dict[int, Value] = {}
    for _, child in branches:
        for primal, _adj in child.free_contributions():
            if primal.id in scope.active:
                free.setdefault(primal.id, primal)
    # a branch that pops a tape pushes the popped values' adjoints (reverse over reverse):
    # that adjoint ``if`` must run even when nothing outside it gets an adjoint
    if not free and not any(inner.prim == "tape_push" for block, _ in branches
                            for inner in block.walk()):
        return
    for block, child in branches:
        with child.builder:
            block.results = [child.table[v.id] if v.id in child.table else child.zeros_like(v)
                             for v in free.values()]
    types = [T.ANY] * len(free)  # adjoints may be NumPy scalars where primals are floats
    adj_op = scope.builder.emit("if", {"cond": scope.visible(op.args["cond"])}, types=types,
                                n_out=len(free))
    adj_op.regions = [b for b, _ in branches]
    for v, out in zip(free.values(), adj_op.outputs):
        scope.accumulate(v, out)


def _export_from_if(scope: Scope, op: Op, k: int, v: Value) -> Value:
    """Make branch ``k``'s value ``v`` an output of the primal ``if``; visible in ``scope``."""
    for j, region in enumerate(op.regions):
        if j == k:
            region.results.append(v)
        else:
            none = Op("const", {}, [Value(type=T.NONE)], {"value": None})
            region.ops.append(none)
            scope.owner[none.out.id] = region
            region.results.append(none.out)
    out = Value(name=v.name, line=v.line, type=v.type)
    out.op = op
    op.outputs.append(out)
    scope.owner[out.id] = scope.primal
    return scope.visible(out)


# --- loops ---------------------------------------------------------------------------------

def backprop_loop(scope: Scope, op: Op) -> None:
    body = op.regions[-1]
    is_for = op.prim == "for_range"
    carried = body.params[1:] if is_for else body.params
    init = op.args["init"]
    slots = [k for k in range(len(init))
             if op.outputs[k].id in scope.active or carried[k].id in scope.active]
    collected = [k for k in range(len(init), len(op.outputs))
                 if op.outputs[k].id in scope.table]
    if not slots and not collected and not pushes_adjoints(scope, op):
        return
    # the tape: made just before the primal loop, pushed at the end of its body
    tape_op = Op("tape_new", {}, [Value(name="tape", type=T.STATIC)])
    scope.primal.ops.insert(scope.primal.ops.index(op), tape_op)
    scope.owner[tape_op.out.id] = scope.primal
    tape = tape_op.out
    push = Op("tape_push", {"tape": tape, "items": ()}, [])
    body.ops.append(push)

    adj_body = Block()
    pop = Op("tape_pop", {"tape": tape}, [])
    adj_body.ops.append(pop)
    index_param = Value("i", type=T.INT) if is_for else Value(type=T.INT)

    def local(v: Value) -> Value:
        if is_for and v is body.params[0]:
            return index_param
        push.args["items"] = (*push.args["items"], v)
        popped = Value(name=v.name, line=v.line, type=v.type)
        popped.op = pop
        pop.outputs.append(popped)
        return popped

    child = _child(scope, body, adj_body, local)
    d_params = [Value(type=T.ANY) for _ in slots]
    for p, k in zip(d_params, slots):
        p.adjoint_of = op.outputs[k]
    with child.builder:
        for p, k in zip(d_params, slots):
            child.accumulate(body.results[k], p)
        for k in collected:  # the adjoint of a collected list: one item per iteration
            item = Op("list_pop", {"list": scope.table[op.outputs[k].id]},
                      [Value(type=body.results[k].type)])
            adj_body.ops.append(item)
            child.accumulate(body.results[k], item.out)
        backprop_block(child)
        new_d = [child.table[carried[k].id] if carried[k].id in child.table else
                 record_rule(_zeros_rule(), [Sym(p)], {}).value
                 for p, k in zip(d_params, slots)]
        free = [(v, adj) for v, adj in child.free_contributions()
                if v.id in scope.active and v not in carried]
        acc_params = [Value(type=T.ANY) for _ in free]
        acc_results = [record_rule(_add_rule(), [Sym(a), Sym(adj)], {}).value
                       for a, (_v, adj) in zip(acc_params, free)]
    adj_body.params = [index_param, *d_params, *acc_params]
    adj_body.results = [*new_d, *acc_results]

    d_init = [scope.table[op.outputs[k].id] if op.outputs[k].id in scope.table
              else _named(scope.zeros_like(op.outputs[k]), op.outputs[k]) for k in slots]
    acc_init = [scope.table[v.id] if v.id in scope.table else _named(scope.zeros_like(v), v)
                for v, _ in free]
    if is_for:
        bounds = {k: scope.visible(op.args[k]) for k in ("start", "stop", "step")}
        attrs = {"reverse": not op.attrs.get("reverse", False)}  # an adjoint loop's: forward
    else:
        count = scope.builder.emit("tape_len", {"tape": scope.visible(tape)},
                                   types=[T.INT]).out
        bounds = {"start": scope.builder.const(0), "stop": count,
                  "step": scope.builder.const(1)}
        attrs = {}
    types = [T.ANY] * (len(d_init) + len(acc_init))
    adj_op = scope.builder.emit("for_range", {**bounds, "init": (*d_init, *acc_init)},
                                attrs=attrs, types=types, n_out=len(types))
    adj_op.regions = [adj_body]
    for (v, _), out in zip(free, adj_op.outputs[len(slots):]):
        out.adjoint_of = v  # the accumulator started from v's adjoint so far: it replaces it
        scope.table[v.id] = out
        scope.primal_of[v.id] = v
    for k, out in zip(slots, adj_op.outputs):
        scope.accumulate(init[k], out)
    if is_for and not push.args["items"]:  # nothing to save: no tape at all
        body.ops.remove(push)
        adj_body.ops.remove(pop)
        scope.primal.ops.remove(tape_op)
    else:  # a while loop's tape counts its iterations even when it saves nothing
        pop.args["tape"] = scope.visible(tape)


def _named(adjoint: Value, primal: Value) -> Value:
    adjoint.adjoint_of = primal
    return adjoint


def _zeros_rule() -> Any:
    from ..structural import STRUCTURAL

    return STRUCTURAL["zeros_of"]


def _add_rule() -> Any:
    from srcgrad.rules import rule_named

    return rule_named("add")
