"""Store or recompute, per value the reverse sweep of a loop reads.

Reverse mode saves a loop's primal values on a tape (``ad/regions.py``): each iteration
pushes them, the adjoint loop pops them. What it saves is decided per primitive, so the
adjoint loop may recompute what the forward iteration already computed (``math.cos(y)``
for ``sin``'s adjoint when the forward loop had ``math.cos(y)`` for the user's own code),
save a value it no longer reads, or save a value that is the same in every iteration.
This pass decides per value, with a push and a pop costing about one cheap arithmetic op:

- *store* a transcendental the forward iteration computed (``sin``, ``cos``, ``exp``...)
  that the adjoint iteration computes again from the same inputs: push it, read the pop;
- *drop* an item nothing reads after its pop (what the adjoint read before was replaced);
- *hoist* an item defined outside every loop (a parameter, a top-level value): it is the
  same each iteration, so the adjoint reads it directly and it is not pushed.

    for i in range(n):                          for i in range(n):
        _t6 = a * x                                 _t6 = a * x
        _t7 = math.cos(_t6)                         _t7 = math.cos(_t6)
        ...                                         ...
        tape.append((_t6, x, k))      ->            tape.append((x, _t7))
    for i in reversed(range(n)):                for i in reversed(range(n)):
        _t6, x_2, k_2 = tape.pop()                  x_2, _t9 = tape.pop()
        _t8 = dz * math.cos(_t6) * k_2              _t8 = dz * _t9 * k

A push is paired with its pop by the tape value (``ad/tape.py``); a tape with more than one
push or pop, or whose push and pop disagree in length, is left alone.
"""

from __future__ import annotations

from typing import Any

from ..ad.tape import pair_tapes
from ..ir.core import PYTHON_SPELLING, USER_ARITHMETIC, USER_CHECK, Block, Function, Op, Value
from .rewrite import replace_uses

# Primitives far dearer than a push and a pop (a libm call, or a pass over an array).
_COSTLY = frozenset({"sin", "cos", "tan", "exp", "log", "tanh", "sqrt", "log1p", "expm1",
                     "sinh", "cosh", "arctan", "arcsin", "arccos", "arctan2", "power"})


def store_or_recompute(fn: Function) -> None:
    blocks = _owning_blocks(fn.body, {})
    top = {p.id for p in fn.params} | {o.id for op in fn.body.ops for o in op.outputs}
    tapes = pair_tapes(fn)
    pairs: list[tuple[Op, Op]] = []
    for root, push in tapes.push_of.items():
        pop = tapes.pop_of.get(root)
        if pop is None or len(push.args["items"]) != len(pop.outputs):
            continue
        pairs.append((push, pop))
    counted: dict[int, int] = {}
    for push, pop in pairs:
        counted[id(push)] = counted.get(id(push), 0) + 1
        counted[id(pop)] = counted.get(id(pop), 0) + 1
    pairs = [(p, q) for p, q in pairs if counted[id(p)] == 1 and counted[id(q)] == 1
             and id(p) in blocks and id(q) in blocks]
    mapping: dict[Value, Value] = {}
    for push, pop in pairs:
        _store(push, pop, blocks[id(push)], blocks[id(pop)], top, mapping)
    replace_uses(fn, mapping)
    uses = fn.body.use_counts()
    for push, pop in pairs:
        _hoist_and_drop(push, pop, top, uses, mapping := {})
        replace_uses(fn, mapping)


def _owning_blocks(block: Block, owner: dict[int, Block]) -> dict[int, Block]:
    for op in block.ops:
        owner[id(op)] = block
        for region in op.regions:
            _owning_blocks(region, owner)
    return owner


def _key(op: Op, args: dict[str, Any]) -> Any:
    attrs = []
    for k, v in sorted(op.attrs.items()):
        if k in (PYTHON_SPELLING, USER_ARITHMETIC, USER_CHECK):
            continue  # a Python spelling that did not raise computed NumPy's value
        if k == "rule":
            v = id(v)
        try:
            hash(v)
        except TypeError:
            return None
        attrs.append((k, v))
    return op.prim, tuple(sorted((k, _ids(a)) for k, a in args.items())), tuple(attrs)


def _ids(a: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(_ids(x) for x in a)
    return a.id if isinstance(a, Value) else a


def _costly(op: Op) -> bool:
    return op.prim in _COSTLY and len(op.outputs) == 1 and not op.regions


def _store(push: Op, pop: Op, forward: Block, reverse: Block, top: set[int],
           mapping: dict[Value, Value]) -> None:
    """Reverse-loop transcendentals the forward iteration computed read a pop instead."""
    computed: dict[Any, Value] = {}
    for op in forward.ops:
        if op is push:
            break  # (only what is defined when the push runs can be pushed)
        if _costly(op):
            key = _key(op, op.args)
            if key is not None:
                computed.setdefault(key, op.out)
    if not computed:
        return
    items = list(push.args["items"])
    pushed_at = {v.id: k for k, v in enumerate(items)}
    back = {o.id: items[k] for k, o in enumerate(pop.outputs)}
    outputs = list(pop.outputs)
    for op in reverse.ops:
        if not _costly(op):
            continue
        args = _forward_args(op.args, back, top)
        key = _key(op, args) if args is not None else None
        found = computed.get(key) if key is not None else None
        if found is None:
            continue
        if found.id not in pushed_at:
            pushed_at[found.id] = len(items)
            items.append(found)
            saved = Value(type=found.type)
            saved.op = pop
            outputs.append(saved)
        mapping[op.out] = outputs[pushed_at[found.id]]
    push.args["items"] = tuple(items)
    pop.outputs = outputs


def _forward_args(args: dict[str, Any], back: dict[int, Value],
                  top: set[int]) -> dict[str, Any] | None:
    """``args`` as the forward iteration names them: a popped value is the pushed one; a
    value defined outside every loop is itself; anything else has no forward name."""
    out: dict[str, Any] = {}
    for k, a in args.items():
        if isinstance(a, tuple):
            return None
        if isinstance(a, Value):
            if a.id in back:
                a = back[a.id]
            elif a.id not in top:
                return None
        out[k] = a
    return out


def _hoist_and_drop(push: Op, pop: Op, top: set[int], uses: dict[int, int],
                    mapping: dict[Value, Value]) -> None:
    """Items defined outside every loop are read directly; items nobody reads are not
    pushed."""
    keep = []
    for k, (item, out) in enumerate(zip(push.args["items"], pop.outputs)):
        if item.id in top:
            mapping[out] = item
        elif uses.get(out.id, 0) > 0:
            keep.append(k)
    if not keep:  # a while loop's adjoint counts its trips by the pushes: keep one
        keep = [0]
    if len(keep) < len(pop.outputs):
        push.args["items"] = tuple(push.args["items"][k] for k in keep)
        pop.outputs = [pop.outputs[k] for k in keep]
