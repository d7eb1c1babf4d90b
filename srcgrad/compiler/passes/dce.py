"""Dead code elimination: drop pure ops none of whose results is used.

The user's own Python arithmetic that may raise (``math.log(a)`` of a Python float) stays
though unread: the derivative raises where the user's function raises
(``rewrite.may_raise``).

    %0 = multiply(x=%a, y=%b)      # unused
    %1 = cos(x=%a)                 ->    %1 = cos(x=%a)
    return %1                            return %1

An ``if``'s results nothing reads are dropped from both branches first; an ``if`` left
with no results and empty branches is dropped (its condition is then dead too):

    %5 = greater_equal(x=%4, y=1e-10)
    if(%5) { } else { }            ->    (both gone)
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op
from .rewrite import removable


def dce(fn: Function) -> None:
    _block(fn.body, set())


def _block(block: Block, live: set[int]) -> None:
    live.update(r.id for r in block.results)
    kept = []
    for op in reversed(block.ops):
        if removable(op) and not any(o.id in live for o in op.outputs):
            continue
        if op.prim == "if":
            _prune_if(op, live)
            for r in op.regions:
                _block(r, live)
            if not op.outputs and not any(r.ops for r in op.regions) \
                    and _plain_truth(op.args.get("cond")):
                # ``if c: pass else: pass`` (a peeled loop test nothing reads); on a lazy
                # (Dask) value the test would also compute
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


def _plain_truth(cond: object) -> bool:
    """Testing ``cond`` need not stay: a Python or NumPy number cannot raise (``if array:``
    may raise "truth value ... is ambiguous", the user's own error, which must stay). A
    value of a type the compiler does not know (a Dask or CuPy array) is dropped too:
    testing it would compute it, and a peeled loop test is tested again by the loop."""
    t = getattr(cond, "type", None)
    return t is not None and (t.is_python_number or t.kind in ("scalar", "any"))
