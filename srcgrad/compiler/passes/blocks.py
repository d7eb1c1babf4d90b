"""The block visitor of the shapes pass: one forward walk over every block of a function,
loop and branch bodies included, carrying shape classes (``passes/shapes.py``) into them.

What a body may assume about values from outside it holds inside it (the IR is SSA). Two
facts are added at region boundaries:

- a **loop-carried value** keeps its initial value's shape class when the body, assuming
  so, yields a value of that class (induction over iterations). The assumption is checked
  by walking the body without rewriting; a carried value whose result leaves the class is
  dropped and the walk repeated until what remains is consistent:

      for_range(0, n, 1, init=(%y0,)) {^(%i, %y)        %y ~ %y0, since
          %t = sin(x=%y)                                %t ~ %y and %y1 = %y * %t ~ %y
          %y1 = multiply(x=%y, y=%t)
          yield %y1 }

- a **popped value** has the class of the item pushed at its position (it is that value,
  saved by the forward iteration the adjoint iteration undoes), when the tape has one push
  and one pop; a popped ``shape(x=v)`` names ``v``'s shape.

``visible`` is the set of values defined at the current point (outer blocks and this one
so far): a rewrite may only make an op read one of those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ad.tape import pair_tapes
from ..ir.core import Block, Function, Op, Value, const_value

_LOOPS = ("for_range", "while")

Visit = Callable[[Op, set[int]], None]


def popped_items(fn: Function) -> dict[int, Value]:
    """Pop output id -> the item pushed at its position (tapes with one push and pop)."""
    tapes = pair_tapes(fn)
    pops: dict[int, list[Op]] = {}
    pushes: dict[int, list[Op]] = {}
    for op in fn.body.walk():
        if op.prim in ("tape_push", "tape_pop"):
            table = pushes if op.prim == "tape_push" else pops
            table.setdefault(tapes.root(op.args["tape"]), []).append(op)
    out: dict[int, Value] = {}
    for root, found in pops.items():
        pushed = pushes.get(root, [])
        if len(found) != 1 or len(pushed) != 1:
            continue
        items = pushed[0].args["items"]
        if len(items) != len(found[0].outputs):
            continue
        for o, item in zip(found[0].outputs, items):
            out[o.id] = item
    return out


def walk(fn: Function, classes: Any, visit: Visit) -> None:
    """Call ``visit(op, visible)`` on every op in program order, ``classes`` holding the
    facts of everything before it; region ops are visited after their regions."""
    visible = {p.id for p in fn.params}
    _block(fn.body, classes, visit, visible)


def _block(block: Block, classes: Any, visit: Visit | None, visible: set[int]) -> None:
    visible.update(p.id for p in block.params)
    for op in block.ops:
        if op.prim in _LOOPS and op.regions:
            _loop(op, classes, visit, visible)
        elif op.regions:
            for region in op.regions:
                _block(region, classes, visit, set(visible))
            _branch_results(op, classes, visible)
        if visit is not None:
            visit(op, visible)
        else:
            classes.visit(op)
        visible.update(o.id for o in op.outputs)


def _carried(op: Op) -> list[tuple[Value, list[Value], Value]]:
    """(initial value, the block parameters standing for it, the body's next value)."""
    body = op.regions[-1]
    lists = [r.params[1:] if op.prim == "for_range" else r.params for r in op.regions]
    out = []
    for k, init in enumerate(op.args.get("init", ())):
        params = [ps[k] for ps in lists if k < len(ps)]
        if k < len(body.results) and isinstance(init, Value):
            out.append((init, params, body.results[k]))
    return out


def _loop(op: Op, classes: Any, visit: Visit | None, visible: set[int]) -> None:
    carried = _carried(op)
    assumed = {k for k, (init, _, _) in enumerate(carried) if classes.has_shape_facts(init)}
    for _ in range(len(carried) + 1):
        trial = classes.copy()
        _assume(trial, carried, assumed)
        for region in op.regions:
            _block(region, trial, None, set(visible))
        failed = {k for k in assumed if not trial.carries(carried[k][2], carried[k][0])}
        if not failed:
            break
        assumed -= failed
    _assume(classes, carried, assumed)
    for region in op.regions:
        _block(region, classes, visit, set(visible))
    for k, (init, _, _) in enumerate(carried):
        if k in assumed and k < len(op.outputs):
            classes.assume(op.outputs[k], init)


def _assume(classes: Any, carried: list[tuple[Value, list[Value], Value]],
            assumed: set[int]) -> None:
    for k in assumed:
        init, params, _ = carried[k]
        for p in params:
            classes.assume(p, init)


def _branch_results(op: Op, classes: Any, visible: set[int]) -> None:
    """An ``if`` output has the class its branches' results share, when that class's
    representative is defined outside the ``if``."""
    if op.prim != "if":
        return
    saved = {v.id for v in classes.popped.values()}
    for k, out in enumerate(op.outputs):
        results = [r.results[k] for r in op.regions if k < len(r.results)]
        if len(results) != len(op.regions) or not results:
            continue
        if out.id in saved:
            # a value saved for the adjoint of one branch is None from the others, whose
            # adjoint never reads it
            results = [v for v in results if const_value(v) != (True, None)] or results
        reps = {classes.of(v).id for v in results}
        if len(reps) == 1 and next(iter(reps)) in visible:
            classes.assume(out, results[0])


def read_inside(block: Block) -> set[int]:
    """Ids of every value ``block`` and its nested regions read (operands and results)."""
    read = {r.id for r in block.results}
    for op in block.ops:
        read.update(v.id for v in op.operands())
        for region in op.regions:
            read |= read_inside(region)
    return read
