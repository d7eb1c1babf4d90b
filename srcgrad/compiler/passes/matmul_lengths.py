"""A product's outer lengths read from its operands: ``(a @ W).shape[-1]`` is
``W.shape[-1]`` when ``W`` is a matrix (or a stack of them).

Runs at the start of the shapes pass (``shapes.py``). Attention scales its scores by the
square root of the head width, which a reader writes from the query, a product made in
the loop body (``q = xb @ Wq``; ``s = q @ k.T / np.sqrt(q.shape[-1])``). Read from ``q``,
the length is computed again on every iteration and its square root pushed on the tape
for the adjoint's ``/``; read from the weight, a parameter, both are loop-invariant and
``hoist.py`` moves them before the loop (nothing pushed):

    %q = matmul(x=%xb, y=%Wq)               %q = matmul(x=%xb, y=%Wq)
    %2 = shape(x=%q)                ->      %9 = shape(x=%Wq)
    %5 = getitem(x=%2, index=-1)            %5 = getitem(x=%9, index=-1)
    %6 = sqrt(x=%5)                         %6 = sqrt(x=%5)

NumPy's matmul keeps the second operand's last axis when that operand has two axes or
more (a 1-d one is dropped) and then the first operand's second-to-last axis when that one
has two or more, so ``[-1]`` of ``y``'s shape and ``[-2]`` of ``x``'s are the product's when
the product exists (where it does not, the matmul raised first). The ints are equal, so
everything computed from them is the same number.
"""

from __future__ import annotations

from typing import Any

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value
from ..ir.types import STATIC
from .rewrite import length_read


def matmul_lengths(fn: Function) -> None:
    _block(fn.body)


def _block(block: Block) -> None:
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region)
        source = _operand_shape(op)
        if source is not None:
            shape = Op("shape", {"x": source}, [Value(type=STATIC)], {"rule": RULES["shape"]},
                       line=op.line)
            ops.append(shape)
            op.args = {**op.args, "x": shape.out}
        ops.append(op)
    block.ops = ops


def _operand_shape(op: Op) -> Value | None:
    """The operand of a product whose shape has the same length at ``op``'s index, when
    ``op`` is ``getitem(shape(matmul(x, y)), -1 or -2)``; else None."""
    read = length_read(op)
    if read is None:
        return None
    product, k = read
    if product.op is None or product.op.prim != "matmul":
        return None
    x, y = product.op.args.get("x"), product.op.args.get("y")
    if not isinstance(x, Value) or not isinstance(y, Value) or (_rank(y) or 0) < 2:
        return None  # (a 1-d ``y`` drops the product's last axis)
    if k == -1:
        return y
    return x if k == -2 and (_rank(x) or 0) >= 2 else None


def _rank(v: Any) -> int | None:
    t = v.type
    return t.ndim if t is not None and t.kind == "array" else None
