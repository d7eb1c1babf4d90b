"""Emitting region ops as Python control flow, and the loop tape.

Every value that flows through a region op (an ``if`` output, a loop-carried value: its
initial value, block parameter, block result and final output) shares one Python name, a
*slot*; a block's result is computed straight into its slot when nothing later reads the
slot's old value, else assigned at the end of the block::

    s = 0.0
    for i in range(n):            # for_range(0, n, 1, init=(0.0,)) {^(i, s) ... yield s_1}
        s = s + x[i]
    _tape = []                    # tape_new / tape_push / tape_pop / tape_len
    _tape.append((s, _t1))
    s, _t1 = _tape.pop()
"""

from __future__ import annotations

from typing import Any

import gast

from ..ir.core import Op, Value, const_value
from . import breaks, conditions, inplace
from .if_slots import if_slot_names

TAPE_PRIMS = ("tape_new", "tape_push", "tape_pop", "tape_len", "list_pop")


def emit_compound(em: Any, op: Op, lines: list[str], indent: str, index: int | None) -> None:
    inner = indent + "    "
    src = em.source_of
    if op.prim == "tape_new":
        lines.append(f"{indent}{em.names.define(op.out)} = []")
    elif op.prim == "tape_push":
        items = [src(em.expr(v)) for v in op.args["items"]]
        # one saved value is pushed bare (no 1-tuple: 56 bytes a step less on the tape)
        packed = items[0] if len(items) == 1 else "(" + ", ".join(items) + ")"
        lines.append(f"{indent}{src(em.expr(op.args['tape']))}.append({packed})")
    elif op.prim == "tape_pop":
        tape = src(em.expr(op.args["tape"]))
        if not op.outputs:
            lines.append(f"{indent}{tape}.pop()")
        else:
            names = [em.names.define(o) for o in op.outputs]
            target = ", ".join(names)
            lines.append(f"{indent}{target} = {tape}.pop()")
    elif op.prim == "list_pop":
        lines.append(f"{indent}{em.names.define(op.out)} = {src(em.expr(op.args['list']))}.pop()")
    elif op.prim == "tape_len":
        lines.append(f"{indent}{em.names.define(op.out)} = len({src(em.expr(op.args['tape']))})")
    elif op.prim == breaks.BREAK:
        emit_break(em, op, lines, indent)
    elif op.prim == "if" and id(op) in em.break_tests:
        conditions.emit_break_test(em, op, lines, indent)
    elif op.prim == "if":
        slots = if_slot_names(em, op)
        then, other = op.regions
        cond = op.args["cond"]
        test = conditions.bare(src(em.expr(cond)))
        if cond.id in em.retested and test.isidentifier():
            # tested again by the reverse pass's `if`: test it once (bool() of a lazy Dask
            # value computes it, and that must happen once per test the user wrote)
            em.retested.discard(cond.id)
            lines.append(f"{indent}{test} = bool({test})")
        # a branch that leaves the loop assigns no outputs; one that computes and assigns
        # nothing is left out (``if c: ...; break`` as the user wrote it)
        # (or that keeps every output in its slot already: .if_slots)
        leaves = [breaks.ends_in_break(b) for b in (then, other)]
        if leaves[1] and _does_nothing(then, slots):
            lines.append(f"{indent}if not {_grouped(test)}:")
            em.block(other, lines, inner)
            return
        first: list[str] = []
        em.block(then, first, inner, slots=None if leaves[0] else slots, empty_ok=True)
        second: list[str] = []
        if not (leaves[0] and _does_nothing(other, slots)):
            em.block(other, second, inner, slots=None if leaves[1] else slots,
                     empty_ok=True)
        if not first and second:
            lines += [f"{indent}if not {_grouped(test)}:", *second]
            return
        lines += [f"{indent}if {test}:", *(first or [f"{inner}pass"])]
        if second:
            lines += [f"{indent}else:", *second]
    elif op.prim in ("for_range", "while"):
        _loop(em, op, lines, indent, index)
    else:
        raise AssertionError(f"no emitter for region op {op.prim}")


def emit_break(em: Any, op: Op, lines: list[str], indent: str) -> None:
    """A ``break`` op: the values the loop leaves with, assigned to its slots in parallel
    (a slot already holding its value is left out), then ``break``."""
    em.assign_slots(list(zip(em.loop_slots[-1], op.args["values"])), lines, indent)
    lines.append(f"{indent}break")


def _does_nothing(block: Any, slots: list[str]) -> bool:
    return not slots and all(o.prim == "const" for o in block.ops)


def _grouped(test: str) -> str:
    """``test`` as the operand of ``not``: a name or call as is, else in parentheses."""
    return test if test.isidentifier() else f"({test})"


def retested_conditions(fn: Any) -> set[int]:
    """Ids of the values that more than one ``if`` tests and nothing else reads, whose type
    is not known to be a Python bool: the forward branch and the reverse pass's branch of
    one user ``if``. The first ``if`` turns such a value into a bool once."""
    tests: dict[int, int] = {}
    for op in fn.body.walk():
        if op.prim == "if":
            c = op.args["cond"]
            if isinstance(c, Value) and (c.type is None or c.type.kind != "bool"):
                tests[c.id] = tests.get(c.id, 0) + 1
    counts = fn.body.use_counts()
    return {i for i, n in tests.items() if n > 1 and counts.get(i) == n}


def _slot_names(em: Any, op: Op, index: int | None) -> list[str]:
    """One name per carried value: the initial value's own name if it dies here."""
    names = []
    read_inside = {v.id for r in op.regions for inner in r.ops for v in _reads(inner)}
    read_inside |= {v.id for r in op.regions for v in r.results}
    body = op.regions[-1]
    carried = body.params[1:] if op.prim == "for_range" else body.params
    for k, (init, out) in enumerate(zip(op.args["init"], op.outputs)):
        param = carried[k] if k < len(carried) else out
        if em.names.family(out) is None and em.names.family(param) is not None:
            # an adjoint loop's accumulator is named after the user's variable (``dy``)
            out.name, out.adjoint_of = param.name, param.adjoint_of
        own = em.names.names.get(init.id)
        is_const, _ = const_value(init)
        if (own is not None and not is_const and index is not None
                and init.id not in read_inside
                and em.last_use.get(init.id) == index and init not in em.fn.params
                and own not in names):
            names.append(own)
        else:
            names.append(em.names.define(out))
            continue
        em.names.define(out, own)
    return names


def _reads(op: Op) -> list[Value]:
    out = list(op.operands())
    for r in op.regions:
        for inner in r.ops:
            out.extend(_reads(inner))
        out.extend(r.results)
    return out


def _loop(em: Any, op: Op, lines: list[str], indent: str, index: int | None) -> None:
    src = em.source_of
    slots = _slot_names(em, op, index)
    for init, name in zip(op.args["init"], slots):
        value = em.expr(init)
        if not (isinstance(value, gast.Name) and value.id == name):
            lines.append(f"{indent}{name} = {src(value)}")
    lists = [em.names.define(o) for o in op.outputs[len(slots):]]  # collected (.append)
    for name in lists:
        lines.append(f"{indent}{name} = []")
    body = op.regions[-1]
    inner = indent + "    "
    inplace.fresh_loop_params(op, slots, em.names,
                              lambda v: index is not None and em.last_use.get(v.id) == index,
                              em.fresh_params)
    if op.prim == "for_range":
        carried = body.params[1:]
        for p, name in zip(carried, slots):
            em.names.define(p, name)
        i = em.names.define(body.params[0])
        lines.append(f"{indent}for {i} in {_range(em, op)}:")
    else:
        carried = body.params
        cond = op.regions[0]
        for params in (cond.params, body.params):
            for p, name in zip(params, slots):
                em.names.define(p, name)
        if conditions.written_as_expression(cond, em.plan):
            lines.append(f"{indent}while {conditions.bare(src(em.expr(cond.results[0])))}:")
        else:  # the test's statements, then a break when it is false (see conditions)
            lines.append(f"{indent}while True:")
            em.block(cond, lines, inner, empty_ok=True)
            if not conditions.ends_in_break(cond, em.break_tests):
                lines.append(f"{inner}if not {src(em.expr(cond.results[0]))}:")
                lines.append(f"{inner}    break")
    em.loop_slots.append(slots)
    try:
        em.block(body, lines, inner, slots=slots, carried=carried, appends=lists,
                 loop_body=True)
    finally:
        em.loop_slots.pop()


def _range(em: Any, op: Op) -> str:
    def part(k: str) -> tuple[bool, Any, str]:
        v: Value = op.args[k]
        is_const, c = const_value(v)
        return is_const, c, em.source_of(em.expr(v))

    start, stop, step = part("start"), part("stop"), part("step")
    if step[0] and step[1] == 1:
        args = stop[2] if start[0] and start[1] == 0 else f"{start[2]}, {stop[2]}"
    else:
        args = f"{start[2]}, {stop[2]}, {step[2]}"
    text = f"range({args})"
    return f"reversed({text})" if op.attrs.get("reverse") else text
