"""Dead code elimination: drop pure ops none of whose results is used.

    %0 = multiply(x=%a, y=%b)      # unused
    %1 = cos(x=%a)                 ->    %1 = cos(x=%a)
    return %1                            return %1

An ``if``'s results nothing reads are dropped from both branches first; an ``if`` left
with no results and nothing in either branch is dropped with its test.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op
from .rewrite import is_pure


def dce(fn: Function) -> None:
    _block(fn.body, set())


def _block(block: Block, live: set[int]) -> None:
    live.update(r.id for r in block.results)
    kept = []
    for op in reversed(block.ops):
        if is_pure(op) and not any(o.id in live for o in op.outputs):
            continue
        if op.prim == "if":
            _prune_if(op, live)
            for r in op.regions:
                _block(r, live)
            if not op.outputs and not any(r.ops for r in op.regions):
                # nothing left in either branch (a `while` test peeled before its loop):
                # the test itself is dead, and on a lazy (Dask) value it would compute
                continue
            kept.append(op)
            live.update(v.id for v in op.operands())
            continue
        kept.append(op)
        live.update(v.id for v in op.operands())
        for r in op.regions:
            _block(r, live)
    block.ops = kept[::-1]


def _prune_if(op: Op, live: set[int]) -> None:
    """Drop the results of an ``if`` nothing reads, from both branches: the ops computing
    them there become dead (a recursive call whose value only its shape needed)."""
    keep = [k for k, o in enumerate(op.outputs) if o.id in live]
    if len(keep) == len(op.outputs):
        return
    op.outputs = [op.outputs[k] for k in keep]
    for region in op.regions:
        region.results = [region.results[k] for k in keep]
