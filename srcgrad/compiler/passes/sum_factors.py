"""Factors constant along a sum taken out of it: ``unbroadcast`` sums the small way.

Runs in the pipeline after ``shapes`` (whose classes it reads) and before
``fold_negations``. The adjoint of ``y`` in ``x / y`` (or ``x * y``) where ``y`` is a
``keepdims`` reduction of a full-shaped value (a softmax's or a normalisation's
denominator) is the sum of a full-shaped product back to ``y``'s shape. ``y`` and a
negation are constant along that sum, so they are applied to the (small) sum instead of
to every element before it::

    %28 = negative(x=%24)                       %40 = multiply(x=%24, y=%p1)
    %29 = multiply(x=%28, y=%p1)           ->   %41 = unbroadcast(x=%40, shape=%15)
    %30 = divide(x=%29, y=%S)                   %42 = divide(x=%41, y=%S)
    %31 = unbroadcast(x=%30, shape=%15)         %31' = negative(x=%42)
    # %15 = shape(x=%S), %S = sum(x=%p, axis=-1, keepdims=True), %24 ~ %p1 ~ %p

(two full-sized passes fewer; ``fold_negations`` then turns ``a + -u`` into ``a - u``).
A negation comes out of any sum (the sum is linear, a sign flip exact); ``y`` only when
the rest of the product provably has the shape ``y`` was reduced from (its shape class
is the reduced value's), so the sum of the rest is exactly that reduction's shape. Each
op the rewrite passes through must be read only by the next one.
"""

from __future__ import annotations

from ...rules.registry import RULES
from ..ir.core import Function, Op, Value
from .rewrite import replace_uses
from .shape_classes import Classes as _Classes
from .shape_classes import elementwise as _elementwise
from .shape_classes import plain_classes as _plain_classes
from .shape_classes import rank0 as _rank0
from .simplify import _floating


def take_factors_out_of_sums(fn: Function) -> None:
    classes = _plain_classes(fn)
    uses = fn.body.use_counts()
    mapping: dict[Value, Value] = {}
    ops: list[Op] = []
    for op in fn.body.ops:
        made = _rewrite(op, classes, uses) if op.prim == "unbroadcast" else None
        if made is None:
            ops.append(op)
            continue
        ops.append(op)  # (dead now; dce drops it)
        ops.extend(made)
        mapping[op.out] = made[-1].out
    fn.body.ops = ops
    replace_uses(fn, mapping)


def _once(v: Value, uses: dict[int, int]) -> bool:
    return uses.get(v.id, 0) == 1 and v.op is not None and len(v.op.outputs) == 1


def _new(prim: str, args: dict[str, Value], like: Value, line: int | None) -> Op:
    return Op(prim, args, [Value(type=like.type, adjoint_of=like.adjoint_of)],
              {"rule": RULES[prim]}, line=line)


def _rewrite(op: Op, classes: _Classes, uses: dict[int, int]) -> list[Op] | None:
    s, core = op.args.get("shape"), op.args.get("x")
    if not isinstance(core, Value) or not _floating(core):
        return None
    w = s.op.args.get("x") if isinstance(s, Value) and s.op is not None and \
        s.op.prim == "shape" else None
    full = classes.fits.get(w.id) if isinstance(w, Value) else None
    negated, divisors, factors = False, 0, 0
    made: list[Op] = []
    while _once(core, uses):
        prim, a = core.op.prim, core.op.args
        if prim == "negative":
            negated, core = not negated, a["x"]
        elif prim == "divide" and full is not None and a["y"] is w:
            divisors, core = divisors + 1, a["x"]
        elif prim == "multiply" and full is not None and w in (a["x"], a["y"]):
            factors, core = factors + 1, a["y"] if a["x"] is w else a["x"]
        elif prim in ("multiply", "divide") and _negated_operand(core, uses) is not None:
            # -u * v, u * -v, -u / v: the sign leaves the product
            name = _negated_operand(core, uses)
            made.append(_new(prim, {**a, name: a[name].op.args["x"]}, core, core.op.line))
            negated, core = not negated, made[-1].out
            break
        else:
            break
    if not negated and not divisors and not factors:
        return None
    if (divisors or factors) and not _shaped_like(core, full, classes):
        return None
    made.append(_new("unbroadcast", {"x": core, "shape": s}, op.out, op.line))
    for _ in range(divisors):
        made.append(_new("divide", {"x": made[-1].out, "y": w}, op.out, op.line))
    for _ in range(factors):
        made.append(_new("multiply", {"x": made[-1].out, "y": w}, op.out, op.line))
    if negated:
        made.append(_new("negative", {"x": made[-1].out}, op.out, op.line))
    return made


def _negated_operand(v: Value, uses: dict[int, int]) -> str | None:
    a = v.op.args
    names = ("x", "y") if v.op.prim == "multiply" else ("x",)
    for name in names:
        u = a.get(name)
        if isinstance(u, Value) and _once(u, uses) and u.op.prim == "negative" \
                and _floating(u):
            return name
    return None


def _shaped_like(v: Value, full: Value | None, classes: _Classes, depth: int = 4) -> bool:
    """``v`` provably has ``full``'s shape: of its class, or an elementwise op of such
    values and scalars (a product built by this pass has no class of its own yet)."""
    if full is None:
        return False
    if classes.same(v, full):
        return True
    op = v.op
    if depth == 0 or op is None or not _elementwise(op):
        return False
    shaped = [u for u in op.operands() if not _rank0(u)]
    return bool(shaped) and all(_shaped_like(u, full, classes, depth - 1) for u in shaped)
