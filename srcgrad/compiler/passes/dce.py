"""Dead code elimination: drop pure ops none of whose results is used.

    %0 = multiply(x=%a, y=%b)      # unused
    %1 = cos(x=%a)                 ->    %1 = cos(x=%a)
    return %1                            return %1
"""

from __future__ import annotations

from ..ir.core import Block, Function
from .rewrite import is_pure


def dce(fn: Function) -> None:
    _block(fn.body, set())


def _block(block: Block, live: set[int]) -> None:
    live.update(r.id for r in block.results)
    kept = []
    for op in reversed(block.ops):
        if is_pure(op) and not any(o.id in live for o in op.outputs):
            continue
        kept.append(op)
        live.update(v.id for v in op.operands())
        for r in op.regions:
            _block(r, live)
    block.ops = kept[::-1]
