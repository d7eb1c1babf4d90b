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
the rest of the product provably has the shape ``y`` was reduced from (an operand of the
reduced value's shape class), so ``y`` is constant along every axis summed. Each op the
rewrite passes through must be read only by the next one. Every block is rewritten: in
a reverse loop body ``y`` and its shape are popped from the tape, standing for the values
the forward iteration pushed (so a softmax per sequence in a loop gets the same adjoint).
"""

from __future__ import annotations

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value
from .blocks import popped_items, walk
from .rewrite import replace_uses
from .shape_classes import Classes as _Classes
from .shape_classes import elementwise as _elementwise
from .shape_classes import rank0 as _rank0
from .simplify import _floating


def take_factors_out_of_sums(fn: Function) -> None:
    uses = fn.body.use_counts()
    if not any(op.prim == "unbroadcast" and _starts_a_rewrite(op.args.get("x"), uses)
               for op in fn.body.walk()):
        return  # (no sum to rewrite: the shape classes below are not needed)
    classes = _Classes()
    classes.popped = popped_items(fn)
    walk(fn, classes, lambda op, _visible: classes.visit(op))
    mapping: dict[Value, Value] = {}
    _block(fn.body, classes, uses, mapping)
    replace_uses(fn, mapping)


def _block(block: Block, classes: _Classes, uses: dict[int, int],
           mapping: dict[Value, Value]) -> None:
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region, classes, uses, mapping)
        made = _rewrite(op, classes, uses) if op.prim == "unbroadcast" else None
        ops.append(op)  # (when rewritten, dead now; dce drops it)
        if made is not None:
            ops.extend(made)
            mapping[op.out] = made[-1].out
    block.ops = ops


def _starts_a_rewrite(x: object, uses: dict[int, int]) -> bool:
    """What :func:`_rewrite` needs of a sum's operand before anything else: read once, by
    the sum, and made by a negation, a division or a product (else its walk stops at once
    and nothing is rewritten)."""
    return isinstance(x, Value) and _once(x, uses) \
        and x.op.prim in ("negative", "divide", "multiply")


def _once(v: Value, uses: dict[int, int]) -> bool:
    return uses.get(v.id, 0) == 1 and v.op is not None and len(v.op.outputs) == 1


def _new(prim: str, args: dict[str, Value], like: Value, line: int | None) -> Op:
    return Op(prim, args, [Value(type=like.type, adjoint_of=like.adjoint_of)],
              {"rule": RULES[prim]}, line=line)


def _rewrite(op: Op, classes: _Classes, uses: dict[int, int]) -> list[Op] | None:
    s, core = op.args.get("shape"), op.args.get("x")
    if not isinstance(core, Value) or not _floats(core, classes):
        return None
    # the reduction whose shape the sum goes to (in a reverse loop, its shape and the
    # divisor are popped from the tape: both stand for the forward values pushed)
    w = classes.shape_source(s)
    full = classes.fits.get(w.id) if isinstance(w, Value) else None
    negated, divisors, factors = False, 0, 0
    divisor: Value | None = None  # w as read here (itself, or popped)
    made: list[Op] = []
    while _once(core, uses):
        prim, a = core.op.prim, core.op.args
        if prim == "negative":
            negated, core = not negated, a["x"]
        elif prim == "divide" and full is not None and _is_w(a["y"], w, divisor, classes):
            divisors, core, divisor = divisors + 1, a["x"], a["y"]
        elif prim == "multiply" and full is not None and _is_w(a["x"], w, divisor, classes):
            factors, core, divisor = factors + 1, a["y"], a["x"]
        elif prim == "multiply" and full is not None and _is_w(a["y"], w, divisor, classes):
            factors, core, divisor = factors + 1, a["x"], a["y"]
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
        made.append(_new("divide", {"x": made[-1].out, "y": divisor}, op.out, op.line))
    for _ in range(factors):
        made.append(_new("multiply", {"x": made[-1].out, "y": divisor}, op.out, op.line))
    if negated:
        made.append(_new("negative", {"x": made[-1].out}, op.out, op.line))
    return made


def _floats(v: Value, classes: _Classes, depth: int = 4) -> bool:
    """Holds floating point numbers: known so, or an arithmetic op with such an operand
    (NumPy promotes the result to a float; a popped value is the value pushed)."""
    v = classes.popped.get(v.id, v)
    if _floating(v):
        return True
    op = v.op
    if depth == 0 or op is None or op.prim not in _ARITHMETIC:
        return False
    return any(_floats(u, classes, depth - 1) for u in op.operands())


_ARITHMETIC = ("add", "subtract", "multiply", "divide", "negative")


def _is_w(v: object, w: Value | None, divisor: Value | None, classes: _Classes) -> bool:
    """``v`` is the reduction ``w`` (or a popped copy of it: the same one as before)."""
    if not isinstance(v, Value) or w is None or classes.popped.get(v.id, v) is not w:
        return False
    return divisor is None or v is divisor


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
    # one operand of ``full``'s shape is enough: the sum's target (``full`` with the
    # reduced axes of length 1) then has no more axes than the product, and the factor,
    # of the target's shape, is constant along every axis the sum runs over whatever
    # the other operands broadcast to
    return any(_shaped_like(u, full, classes, depth - 1) for u in op.operands()
               if not _rank0(u))
