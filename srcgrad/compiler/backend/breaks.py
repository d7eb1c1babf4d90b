"""Backend: a ``while`` loop's ``break`` flag written back as Python's own ``break``.

The frontend lowers ``break`` to a flag the loop carries (``frontend/loop_exits.py``): False
at first, set by an ``if``, and-ed into the loop's test, with the statements after the
``break`` run under ``if not flag``. That IR is what every pass and transform wants, but
printed literally it tests the flag twice per trip and copies each carried value through
the ``if``'s outputs::

    _break1 = False                          while count < 50:
    while not _break1 and count < 50:            nxt = ...
        nxt = ...                                if abs(nxt - x) <= 1e-14 * abs(x):
        if abs(nxt - x) <= 1e-14 * abs(x):  ->       x = nxt
            x_1, _break1 = nxt, True                 break
        else:                                    count = count + 1
            x_1, _break1 = x, False              x = nxt
        if not _break1:
            count_1 = count + 1
            x = nxt
        else:
            count_1, x = count, x_1
        count = count_1

:func:`native_breaks` rewrites, on a copy of the function made for emission only, each
``while`` whose flag has that shape: the flag's slot is dropped, the test loses its ``not
flag and``, the branch that set the flag ends in a ``break`` op carrying the values the
loop's slots hold when it leaves (read through the ``else`` branches of the guarded ``if``s,
which only pass values on), and the statements under ``if not flag`` move up into the loop
body. A reverse sweep's ``tape_push`` of the trip's numbers, after the setter, moves up to
where those numbers are made (before the ``break`` that would skip it). The emitter prints
the ``break`` op (``control.emit_break``) as the parallel
assignment of those values to the slots, then ``break``. Any other shape (the flag read
elsewhere, work done on the exit path after the flag is set, a ``return`` flag) keeps the
flag: the rewrite is an exact re-spelling or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import clone_function
from ..ir.core import Block, Function, Op, Value, const_value

BREAK = "break"  # the op: leave the innermost loop, its slots given ``args["values"]``
# ops whose order against a moved ``tape_push`` matters
_EFFECTS = frozenset({"call", "print", "assert", "raise", "tape_new", "tape_push",
                      "tape_pop", "tape_len", "list_pop"})


@dataclass
class _Plan:
    """A ``while`` op whose carried slot ``flag`` is a break flag that can be spelled out."""

    flag: int  # the flag's slot
    setter: int  # index in the body of the ``if`` that sets the flag
    exits: int  # which region of that ``if`` sets it (0: then, 1: else)
    exit_values: list[Value]  # per slot (the flag's too: unused), its value when leaving
    rest: Block  # the loop's test without ``not flag and`` (empty: ``while True``)


def native_breaks(fn: Function) -> Function:
    """``fn`` itself, or a copy of it with each break flag that allows it written as a
    ``break`` (see the module docstring). The copy is for emission only: a transform
    composed on ``fn`` still reads its flags."""
    if not any(_plan(op, fn.body.use_counts()) for op in fn.body.walk()
               if op.prim == "while"):
        return fn
    copy, mapping = clone_function(fn)
    for old, new in mapping.items():  # (names: the adjoint of ``x`` is still ``dx``)
        if old.adjoint_of is not None:
            new.adjoint_of = mapping.get(old.adjoint_of, old.adjoint_of)
    # innermost loops last: a rewrite leaves the ops of enclosing blocks in place
    for op in [o for o in copy.body.walk() if o.prim == "while"]:
        plan = _plan(op, copy.body.use_counts())
        if plan is not None:
            _rewrite(op, plan)
    return copy


def _plan(op: Op, counts: dict[int, int]) -> _Plan | None:
    body = op.regions[1]
    for k, init in enumerate(op.args["init"]):
        if k >= len(body.params) or not _is_bool(init, False):
            continue
        plan = _flag_plan(op, k, counts)
        if plan is not None:
            return plan
    return None


def _flag_plan(op: Op, k: int, counts: dict[int, int]) -> _Plan | None:
    cond, body = op.regions
    rest = _test_rest(cond, k, counts)
    if counts.get(body.params[k].id, 0) or counts.get(op.outputs[k].id, 0) or rest is None:
        return None  # the flag is read in the body or after the loop, or tested otherwise
    flag = body.results[k]
    setter = flag.op
    if setter is None or setter.prim != "if" or setter not in body.ops:
        return None
    j = setter.outputs.index(flag)
    if len(setter.regions) != 2:
        return None
    then, other = (r.results[j] for r in setter.regions)
    if _is_bool(then, True) and _is_bool(other, False):
        exits = 0
    elif _is_bool(then, False) and _is_bool(other, True):
        exits = 1
    else:
        return None  # (set in a nested ``if``, or copied from elsewhere)
    m = body.ops.index(setter)
    # after the setter: only ``not flag`` and the ``if``s it guards, whose ``else`` (the
    # flag set) computes nothing
    nots: set[int] = set()
    guarded: dict[int, Op] = {}
    made_after = {o.id for op in body.ops[m:] for o in op.outputs}
    for later in body.ops[m + 1:]:
        if later.prim == "const":
            continue
        if _movable_push(later, setter, made_after):
            continue
        if later.prim == "not" and later.args.get("x") is flag:
            nots.add(later.out.id)
        elif later.prim == "if" and isinstance(later.args.get("cond"), Value) \
                and later.args["cond"].id in nots and len(later.regions) == 2 \
                and all(o.prim == "const" for o in later.regions[1].ops):
            guarded[id(later)] = later
        else:
            return None
    if counts.get(flag.id, 0) != 1 + sum(1 for o in body.ops[m + 1:]
                                         if o.prim == "not" and o.args.get("x") is flag):
        return None  # the flag is read by more than the loop and the guards
    if any(counts.get(n, 0) != sum(1 for g in guarded.values() if g.args["cond"].id == n)
           for n in nots):
        return None  # a guard's ``not flag`` is read by something else too
    after = {id(o) for o in body.ops[m + 1:]}
    values = []
    for r in body.results[:len(op.args["init"])]:
        v = _on_exit(r, setter, exits, guarded, after)
        if v is None:
            return None
        values.append(v)
    return _Plan(k, m, exits, values, rest)


def _movable_push(op: Op, setter: Op, made_after: set[int]) -> bool:
    """A reverse sweep's ``tape_push`` after the setter that may run before it: it pushes
    numbers (immutable: no later in-place write can change what was pushed) made before
    the setter, and the setter pushes, pops and prints nothing (so the tape's order and
    the user's output stay as they were)."""
    if op.prim != "tape_push" or any(v.id in made_after for v in op.operands()):
        return False
    if not all(_immutable_number(v) or const_value(v)[0] for v in op.args["items"]):
        return False
    return not any(inner.prim in _EFFECTS for r in setter.regions for inner in r.walk())


def _immutable_number(v: Value) -> bool:
    t = v.type
    return t is not None and (t.is_python_number or t.kind == "scalar")


def _is_bool(v: Value, which: bool) -> bool:
    is_const, value = const_value(v)
    return is_const and type(value) is bool and value is which


def _test_rest(cond: Block, k: int, counts: dict[int, int]) -> Block | None:
    """The loop test without its ``not flag``: ``not flag`` alone gives an empty block,
    ``not flag and rest`` the block computing ``rest``; None for any other test."""
    flag = cond.params[k]
    ops = [o for o in cond.ops if o.prim != "const"]
    if not ops or ops[0].prim != "not" or ops[0].args.get("x") is not flag \
            or counts.get(flag.id, 0) != 1:
        return None
    negated = ops[0].out
    if ops == [ops[0]] and cond.results == [negated] and counts.get(negated.id, 0) == 1:
        return Block()
    if len(ops) != 2 or cond.results != [ops[1].out]:
        return None
    both = ops[1]  # ``if not flag: rest else: not flag`` is ``not flag and rest``
    if both.prim != "if" or both.args.get("cond") is not negated or len(both.outputs) != 1 \
            or len(both.regions) != 2 or both.regions[1].results != [negated] \
            or any(o.prim != "const" for o in both.regions[1].ops) \
            or counts.get(negated.id, 0) != 2:
        return None
    return both.regions[0]


def _on_exit(v: Value, setter: Op, exits: int, guarded: dict[int, Op],
             after: set[int]) -> Value | None:
    """What the body's result ``v`` is on the path that sets the flag: through the guarded
    ``if``s' ``else`` and the setter's exiting branch; None if it is computed after the
    setter by anything else."""
    for _ in range(len(guarded) + 2):
        op = v.op
        if op is None or op.prim == "const" or id(op) not in after and op is not setter:
            return v
        if op is setter:
            return setter.regions[exits].results[setter.outputs.index(v)]
        if id(op) not in guarded:
            return None
        v = op.regions[1].results[op.outputs.index(v)]
    return None


def _rewrite(op: Op, plan: _Plan) -> None:
    cond, body = op.regions
    k = plan.flag
    _drop_slot(op, k)
    setter = body.ops[plan.setter]
    exiting = setter.regions[plan.exits]
    values = tuple(v for i, v in enumerate(plan.exit_values) if i != k)
    exiting.ops.append(Op(BREAK, {"values": values}, line=setter.line))
    # the guarded ``if``s: their ``then`` runs in the body itself, their outputs replaced by
    # what it yields
    replace: dict[int, Value] = {}
    # a reverse sweep's push of this trip's values runs before the test that may leave:
    # as soon as what it pushes is made (and after any op whose order it must keep)
    pushes = [o for o in body.ops[plan.setter + 1:] if o.prim == "tape_push"]
    ops = body.ops[:plan.setter]
    if pushes:
        read = {v.id for push in pushes for v in push.operands()}
        at = 1 + max([i for i, o in enumerate(ops) if o.prim in _EFFECTS or o.regions
                      or any(out.id in read for out in o.outputs)], default=-1)
        ops[at:at] = pushes
    ops.append(setter)
    for later in body.ops[plan.setter + 1:]:
        if later.prim in ("not", "tape_push"):
            continue
        if later.prim == "if":
            stay = later.regions[0]
            for o, r in zip(later.outputs, stay.results):
                replace[o.id] = replace.get(r.id, r)
            ops += stay.ops
            continue
        ops.append(later)
    body.ops = ops
    _substitute(body, replace)
    _drop_unread_outputs(setter, body)
    # the test: what is left after ``not flag and``
    true = Op("const", attrs={"value": True}, outputs=[Value()])
    cond.ops = plan.rest.ops or [true]
    cond.results = list(plan.rest.results) or [true.out]


def _drop_slot(op: Op, k: int) -> None:
    cond, body = op.regions
    op.args = {**op.args, "init": tuple(v for i, v in enumerate(op.args["init"]) if i != k)}
    for block in (cond, body):
        del block.params[k]
    del body.results[k]
    del op.outputs[k]


def _substitute(block: Block, replace: dict[int, Value]) -> None:
    if not replace:
        return

    def fix(a: object) -> object:
        if isinstance(a, tuple):
            return tuple(fix(x) for x in a)
        if isinstance(a, Value):
            return replace.get(a.id, a)
        return a

    for inner in block.ops:
        inner.args = {name: fix(a) for name, a in inner.args.items()}
        for region in inner.regions:
            _substitute(region, replace)
    block.results = [replace.get(r.id, r) for r in block.results]


def _drop_unread_outputs(setter: Op, body: Block) -> None:
    """The setter's outputs only the guarded ``else`` branches read (the flag, the values
    the loop leaves with) are read by nothing now: dropped from the ``if``."""
    counts = body.use_counts()
    keep = [i for i, o in enumerate(setter.outputs) if counts.get(o.id, 0)]
    setter.outputs = [setter.outputs[i] for i in keep]
    for region in setter.regions:
        region.results = [region.results[i] for i in keep]


def ends_in_break(block: Block) -> bool:
    """Whether ``block`` (an ``if`` branch) leaves its loop at its end."""
    return bool(block.ops) and block.ops[-1].prim == BREAK
