"""Values a loop carries that nothing reads after it: dropped with their computation.

A derived function that returns only some of what its IR computed (the batched forward
pass of ``sg.hessian`` returns the gradient's tangent rows, not the gradient) leaves loops
carrying values no one reads: the gradient itself, accumulated with a scatter per element
read, and the tangent of the primal's value. Dead code elimination drops unused ops, but a
loop's carried value is read by the loop's next iteration, so it never looks unused. Here a
carried slot is dead when the loop's output for it is unused and its body parameter feeds
nothing live (computed backwards over the body, every op with effects or regions and the
``while`` test counted as live); its init, parameter, result and output are removed, and
the ops that computed it are dropped by DCE. Runs right after the forward transform.

A carried slot whose body yields its own parameter back (the reverse sweep carries the
seed of a loop's scalar result through every iteration unchanged) holds its init in every
iteration: its reads become reads of the init and the slot is dropped, so what is computed
from it (``unbroadcast(seed, ())``) is loop-invariant and the hoisting pass moves it out.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value
from ..passes.dce import dce
from ..passes.rewrite import removable, replace_uses


def drop_dead_carries(fn: Function) -> None:
    changed = True
    while changed:
        changed = False
        used = fn.body.use_counts()
        for op in list(fn.body.walk()):
            if op.prim in ("for_range", "while") and (_invariant(fn, op) or _prune(op, used)):
                changed = True
                break  # the use counts changed
        dce(fn)  # (the ops that read a dropped parameter computed only dead values)


def _invariant(fn: Function, op: Op) -> bool:
    """Drop the carried slots the body yields back unchanged, their reads (in the body, the
    ``while`` test and after the loop) reading the init instead."""
    body = op.regions[-1]
    init = list(op.args["init"])
    first = 1 if op.prim == "for_range" else 0
    carried = body.params[first:first + len(init)]
    same = [k for k, (p, r) in enumerate(zip(carried, body.results)) if r is p]
    if not same:
        return False
    mapping = {carried[k]: init[k] for k in same}
    mapping.update({op.outputs[k]: init[k] for k in same})
    if op.prim == "while":
        mapping.update({op.regions[0].params[k]: init[k] for k in same
                        if k < len(op.regions[0].params)})
    replace_uses(fn, mapping)
    _remove(op, set(same))
    return True


def _remove(op: Op, dead: set[int]) -> None:
    """Remove the carried slots ``dead`` (init, parameters, results, outputs) of a loop."""
    body = op.regions[-1]
    init = list(op.args["init"])
    n = len(init)
    first = 1 if op.prim == "for_range" else 0
    carried = body.params[first:first + n]
    keep = [k for k in range(n) if k not in dead]
    op.args["init"] = tuple(init[k] for k in keep)
    body.results = [body.results[k] for k in keep] + list(body.results[n:])
    body.params = body.params[:first] + [carried[k] for k in keep] + body.params[first + n:]
    if op.prim == "while":
        test = op.regions[0]
        test.params = [test.params[k] for k in keep] + test.params[n:]
    op.outputs = [op.outputs[k] for k in keep] + op.outputs[n:]


def _prune(op: Op, used: dict[int, int]) -> bool:
    body = op.regions[-1]
    init = list(op.args["init"])
    n = len(init)
    first = 1 if op.prim == "for_range" else 0
    carried = body.params[first:first + n]
    dead = {k for k in range(n) if not used.get(op.outputs[k].id)}
    if op.prim == "while":  # the test reads the carried values through its own parameters
        test = op.regions[0]
        tested = _reads(test)
        dead = {k for k in dead if k < len(test.params) and test.params[k].id not in tested}
    while dead:
        roots = [r for k, r in enumerate(body.results) if k not in dead]
        live = _live(body, roots)
        kept = {k for k in dead if carried[k].id in live}
        if not kept:
            break
        dead -= kept
    if not dead:
        return False
    _remove(op, dead)
    return True


def _live(block: Block, roots: list[Value]) -> set[int]:
    """Ids of the values of ``block`` (and of the block's parameters) that ``roots``, the
    effects and the nested regions read, transitively."""
    live = {v.id for v in roots}
    for op in reversed(block.ops):
        if op.regions or not removable(op) or any(o.id in live for o in op.outputs):
            live.update(v.id for v in op.operands())
            for region in op.regions:  # (conservative: all a nested region reads)
                live |= _reads(region)
    return live


def _reads(block: Block) -> set[int]:
    return set(block.use_counts())
