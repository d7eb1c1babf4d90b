"""In-place sums carried by a loop: a reverse loop's ``dW = dW + dW_1`` becomes
``dW += dW_1``, so the gradient of a weight read on every iteration is summed into one
buffer instead of a new array per iteration.

Part of ``accumulate.py``'s pass (runs last). The reverse sweep of a loop carries the
adjoint of every array the body reads, starting from zeros and adding each iteration's
contribution::

    %15 = zeros_of(x=%Wv)                          (emitted:)
    %18 = for_range(0, %n, 1, init=(%15,)) {       dWv = zeros_of(Wv)
      ^(%i, %21):                                  for i_1 in reversed(range(n)):
        %45 = matmul(x=%44, y=%34)                     dWv_1 = _t16 @ dv
        %48 = add(x=%21, y=%45)  {accumulate: "x"}     dWv += dWv_1
        yield %48 }

The add is marked (the backend then writes ``+=`` when the result goes straight into the
loop's slot, ``backend/emit.py``) only when, by induction over iterations, the array
updated is the one ``zeros_of`` made and nothing else can see it change:

- the initial value is ``zeros_of(x)`` of a float64 array ``x`` (a new, writable array of
  ``x``'s shape and dtype) that nothing but the loop reads;
- in the body, the carried value is read by this add alone (never pushed on a tape, never
  viewed, never read by a nested region), and the add's result only by the yield;
- the other operand is float64 and provably of ``x``'s shape (its shape class), a 0-d
  value, or shaped like a keepdims reduction of such an array: ``+=`` never broadcasts the
  accumulator itself and never casts the sum to a narrower dtype.

So after any number of iterations the slot holds that same buffer, with the value the
functional sum would have had (the same additions in the same order: bit for bit).
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value
from .blocks import popped_items, walk
from .shape_classes import Classes, float64_array, parameter_classes, rank0

_LOOPS = ("for_range", "while")


def loop_classes(fn: Function) -> Classes | None:
    """The shape classes of every block, loop bodies included; None without a loop."""
    if not any(op.prim in _LOOPS for op in fn.body.walk()):
        return None
    classes = parameter_classes(fn)
    classes.popped = popped_items(fn)  # (a popped value has the class of what was pushed)
    walk(fn, classes, lambda op, visible: classes.visit(op))
    return classes


def loop_bodies(fn: Function) -> list[Block]:
    """The body of every ``for_range`` and ``while`` (not a ``while``'s test)."""
    return [op.regions[-1] for op in fn.body.walk() if op.prim in _LOOPS and op.regions]


def accumulate_in_loops(fn: Function, uses: dict[int, int], classes: Classes) -> None:
    """Mark the loop-carried sums of every ``for_range`` body that may add in place;
    ``uses``: how often each value is read anywhere in ``fn``."""
    for loop in fn.body.walk():
        if loop.prim == "for_range" and loop.regions:
            _loop(loop, classes, uses)


def _loop(loop: Op, classes: Classes, uses: dict[int, int]) -> None:
    body = loop.regions[-1]
    counts = body.use_counts()
    for init, param, result in zip(loop.args.get("init", ()), body.params[1:], body.results):
        x = _zeros_of(init)
        if x is None or uses.get(init.id) != 1 or counts.get(param.id) != 1 \
                or counts.get(result.id) != 1:
            continue
        op = _sum_in(body, result)
        if op is None:
            continue
        key = "x" if op.args.get("x") is param else "y" if op.args.get("y") is param else None
        if key is None:
            continue
        rest = op.args["y" if key == "x" else "x"]
        if isinstance(rest, Value) and _fits(rest, x, classes):
            op.attrs["accumulate"] = key


def _zeros_of(init: object) -> Value | None:
    """``x`` when ``init`` is ``zeros_of(x)`` of a float64 array ``x``."""
    op = init.op if isinstance(init, Value) else None
    x = op.args.get("x") if op is not None and op.prim == "zeros_of" else None
    return x if isinstance(x, Value) and float64_array(x) else None


def _sum_in(body: Block, result: Value) -> Op | None:
    """The ``add`` among ``body``'s own ops (not a nested region's) that makes ``result``."""
    op = result.op
    if op is None or op.prim != "add" or len(op.outputs) != 1 or op not in body.ops \
            or set(op.args) != {"x", "y"}:
        return None
    return op


def _fits(rest: Value, x: Value, classes: Classes) -> bool:
    if not classes.is_float64(rest):
        return False
    if rank0(rest, classes.numbers) or classes.same(rest, x):  # (the walk's answers)
        return True
    fitted = classes.fits.get(classes.of(rest).id)  # a keepdims reduction of x's shape
    return fitted is not None and classes.same(fitted, x)
