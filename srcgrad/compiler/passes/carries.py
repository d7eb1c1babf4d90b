"""Invariant loop carries: a value a loop carries unchanged (its body yields the very
parameter it received) is its initial value in every iteration and after the loop.

Runs in the pipeline before ``hoist_invariants``. Reverse mode carries the adjoint of each
loop-carried variable; that of an accumulator ``loss = loss + ...`` is the seed, passed
through every iteration unchanged:

    %16, %17 = for_range(..., init=(%12, %13)) {      (uses of %20 and %16 -> %12)
      ^(%i, %20, %21):
      %27 = unbroadcast(x=%20, shape=())        ->     %27 = unbroadcast(x=%12, shape=())
      ...
      yield %20, %40
    }

Read as the initial value, what the body computes from it no longer depends on the loop,
so ``hoist_invariants`` moves it out (``unbroadcast`` of the seed was a helper call per
iteration, a third of a scalar ODE loop's reverse sweep).
"""

from __future__ import annotations

from ..ir.core import Function, Value
from .rewrite import replace_uses

_LOOPS = ("for_range", "while")


def invariant_carries(fn: Function) -> None:
    mapping: dict[Value, Value] = {}
    for op in fn.body.walk():
        if op.prim not in _LOOPS or not op.regions:
            continue
        body = op.regions[-1]
        carried = body.params[1:] if op.prim == "for_range" else body.params
        init = op.args.get("init", ())
        same = [k for k, (param, result) in enumerate(zip(carried, body.results))
                if result is param and k < len(init) and k < len(op.outputs)
                and isinstance(init[k], Value)]
        for k in same:
            mapping[carried[k]] = init[k]
            mapping[op.outputs[k]] = init[k]
        if same and op.prim == "for_range":  # (a while loop's condition has the slots
            # as parameters too: there the slot stays, read by nothing)
            keep = [k for k in range(len(carried)) if k not in same]
            extra = range(len(carried), max(len(body.results), len(op.outputs)))
            body.params = [body.params[0], *(carried[k] for k in keep)]
            body.results = [body.results[k] for k in [*keep, *extra]
                            if k < len(body.results)]
            op.outputs = [op.outputs[k] for k in [*keep, *extra] if k < len(op.outputs)]
            op.args = {**op.args, "init": tuple(init[k] for k in keep)}
    replace_uses(fn, mapping)
