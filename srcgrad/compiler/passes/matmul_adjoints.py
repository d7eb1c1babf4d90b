"""Matmul adjoints written as the products they are, where the operands' ranks are known.

Where it sits: called by the shapes pass (``shapes.py``) at the start of each round, before
the shape classes are built, so its results get classes like any other op. The matmul
rule's adjoints are the helper primitives ``matmul_adjoint_x(c, y, shape(x))`` and
``matmul_adjoint_y(x, c, shape(y))`` (``rules/products.py``): they promote 1-d operands,
sum broadcast batch axes and reshape, which costs a helper call and several array-method
calls on every gradient call. With both operands of rank >= 2 (known from the abstract
types) the adjoint is one product with a transposed operand:

    matmul_adjoint_x(c, y, shape(x))   ->   c @ mT(y)      (x 2-d and y 2-d, or y 2-d:
                                                             c has x's batch axes)
                                       ->   unbroadcast(c @ mT(y), shape(x))   (otherwise:
                                             x's batch axes may have broadcast against y's)
    matmul_adjoint_y(x, c, shape(y))   ->   mT(x) @ c, likewise

A matrix ``y`` applied to a batch ``x`` keeps its helper for ``matmul_adjoint_y``: the
helper folds the batch into the rows (one 2-d product), faster than a batched product and
a sum. ``mT(v)`` swaps the last two axes; a ``v`` that is itself such a transpose (``q @
k.transpose(0, 2, 1)``) is read untransposed, not transposed twice. Last, a transpose of
the last two axes of a product read only there is the product of the transposes swapped,
``(a @ b)^T = b^T @ a^T``, so the cotangent of ``k`` in ``q @ k.T`` is ``mT(ds) @ q``:
one transpose where there were two, and a contiguous result.

Every rewrite keeps ranks >= 2 on both sides of each product, where these identities hold
for any batch shapes (broadcasting included).
"""

from __future__ import annotations

from typing import Any

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value, const_value
from ..ir.types import NONE, STATIC
from .blocks import popped_items
from .shape_classes import MATMUL_ADJOINTS, SHAPED_LIKE


def plain_matmul_adjoints(fn: Function) -> dict[int, Value]:
    """Rewrite the adjoints in every block; the new products whose shape is exactly their
    differentiated operand's (result id -> that operand), for the shape classes."""
    popped = popped_items(fn)
    shaped_like: dict[int, Value] = {}
    ranks: dict[int, tuple[int, int]] = {}
    _block(fn.body, popped, shaped_like, ranks)
    counts = fn.body.use_counts()
    _swap_transposed_products(fn.body, counts, ranks)
    return shaped_like


def _rank(v: Any) -> int | None:
    if not isinstance(v, Value) or v.type is None:
        return None
    return v.type.known_ndim


def _source(shape: Any, popped: dict[int, Value]) -> Value | None:
    """``v`` when ``shape`` is ``shape(x=v)``, possibly saved on a tape and popped."""
    if isinstance(shape, Value) and shape.id in popped:
        shape = popped[shape.id]
    if isinstance(shape, Value) and shape.op is not None and shape.op.prim == "shape":
        x = shape.op.args.get("x")
        return x if isinstance(x, Value) else None
    return None


def _swap_perm(n: int) -> tuple[int, ...]:
    return (*range(n - 2), n - 1, n - 2)


def _swaps_last_two(op: Op | None, n: int) -> bool:
    """``op`` is a transpose/swapaxes of a rank-``n`` value exchanging its last two axes."""
    if op is None or n < 2:
        return False
    if op.prim == "transpose":
        axes = op.args.get("axes")
        ok, perm = const_value(axes) if isinstance(axes, Value) else (False, None)
        if not ok:
            return False
        if perm is None:
            return n == 2
        try:
            return tuple(int(a) % n for a in perm) == _swap_perm(n)
        except (TypeError, ValueError):
            return False
    if op.prim == "swapaxes":
        found = [const_value(op.args[k]) if isinstance(op.args.get(k), Value) else (False, None)
                 for k in ("axis1", "axis2")]
        if not all(ok and type(a) is int for ok, a in found):
            return False
        return {found[0][1] % n, found[1][1] % n} == {n - 2, n - 1}
    return False


def _transposed(v: Value, n: int, ops: list[Op], line: int | None) -> Value:
    """``mT(v)`` for ``v`` of rank ``n``: ``v``'s own operand when ``v`` is such a
    transpose, else a new transpose op appended to ``ops``."""
    if _swaps_last_two(v.op, n) and _rank(v.op.args["x"]) == n:
        return v.op.args["x"]
    axes = Op("const", {}, [Value(type=NONE if n == 2 else STATIC)],
              {"value": None if n == 2 else _swap_perm(n)}, line=line)
    flipped = Op("transpose", {"x": v, "axes": axes.out}, [Value(type=v.type)],
                 {"rule": RULES["transpose"]}, line=line)
    ops += [axes, flipped]
    return flipped.out


def _block(block: Block, popped: dict[int, Value], shaped_like: dict[int, Value],
           ranks: dict[int, tuple[int, int]]) -> None:
    """``ranks``: the operands' ranks of each product made (a cotangent has no type, but
    its rank is the product's, ``max(n, m)``)."""
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region, popped, shaped_like, ranks)
        if op.prim not in MATMUL_ADJOINTS:
            ops.append(op)
            continue
        source = _source(op.args.get("shape"), popped)  # the differentiated operand
        is_x = op.prim == "matmul_adjoint_x"
        other = op.args["y"] if is_x else op.args["x"]
        n, m = _rank(source), _rank(other)
        if n is None or m is None or n < 2 or m < 2 or (not is_x and n == 2 < m):
            ops.append(op)  # (1-d operands, unknown ranks; a matrix y of a batch x)
            continue
        c = op.args["c"]
        flipped = _transposed(other, m, ops, op.line)
        pair = {"x": c, "y": flipped} if is_x else {"x": flipped, "y": c}
        # c carries the batch axes of the product; with the other operand a matrix they
        # are exactly the differentiated operand's
        exact = m == 2 or n == m == 2
        if exact:
            op.prim, op.args = "matmul", pair
            op.attrs = {**op.attrs, "rule": RULES["matmul"], SHAPED_LIKE: source}
            shaped_like[op.out.id] = source
            ranks[op.out.id] = (max(n, m), m) if is_x else (m, max(n, m))
            ops.append(op)
            continue
        product = Op("matmul", pair, [Value()], {"rule": RULES["matmul"]}, line=op.line)
        ops.append(product)
        op.prim, op.args = "unbroadcast", {"x": product.out, "shape": op.args["shape"]}
        op.attrs = {**op.attrs, "rule": RULES["unbroadcast"]}
        ops.append(op)
    block.ops = ops


def _swap_transposed_products(block: Block, counts: dict[int, int],
                              ranks: dict[int, tuple[int, int]]) -> None:
    """``mT(a @ b)`` of a product read only there is ``mT(b) @ mT(a)``, where ``a`` or ``b``
    is a transpose itself (so a transpose is saved, not moved)."""
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _swap_transposed_products(region, counts, ranks)
        x = op.args.get("x") if op.prim in ("transpose", "swapaxes") else None
        product = x.op if isinstance(x, Value) else None
        if product is None or product.prim != "matmul" or counts.get(x.id) != 1 \
                or product not in ops:
            ops.append(op)
            continue
        a, b = product.args["x"], product.args["y"]
        ra, rb = ranks.get(x.id, (_rank(a), _rank(b)))
        if ra is None or rb is None or ra < 2 or rb < 2:
            ops.append(op)
            continue
        n = max(ra, rb)
        if not _swaps_last_two(op, n) or not (_swaps_last_two(a.op, ra)
                                               or _swaps_last_two(b.op, rb)):
            ops.append(op)
            continue
        ops.remove(product)
        pair = {"x": _transposed(b, rb, ops, op.line), "y": _transposed(a, ra, ops, op.line)}
        op.prim, op.args, op.attrs = "matmul", pair, {**op.attrs, "rule": RULES["matmul"]}
        ops.append(op)
    block.ops = ops
