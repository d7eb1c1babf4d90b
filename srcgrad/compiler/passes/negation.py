"""Negations folded into the arithmetic that reads them, in every block (loop and branch
bodies included).

Derivative rules negate freely (``cos``'s tangent is ``-sin(x) * t``, ``subtract``'s adjoint
is ``-g``), so chains such as ``_t5 + -(-_t10 * _t13)`` reach the emitted code. Each
rewrite below is exact in IEEE arithmetic (negation only flips a sign bit, and rounding is
symmetric about zero), so the result is the same number, one operation cheaper:

    %3 = negative(x=%b)                      %3 = negative(x=%b)     (dead unless read)
    %4 = add(x=%a, y=%3)          ->         %4 = subtract(x=%a, y=%b)
    %6 = subtract(x=%a, y=%5)     ->         %6 = add(x=%a, y=%u)      (%5 = negative(%u))
    %7 = multiply(x=-1.0, y=%t)   ->         %7 = negative(x=%t)
    %9 = negative(x=%8)           ->         (uses of %9 -> %8, with %8 = multiply(x=%u, y=%v)
    %8 = multiply(x=%2, y=%v)                 when %2 = negative(x=%u) and %8 is read once)

A negation is moved out of ``unbroadcast``, ``unreduce`` and ``picked`` (linear, and only
summing or selecting) and through a product or quotient (``-(-u * v / w)``, ``a + -u * v``) only
along the operand it negates, and only when every op it passes through is read once (so no
other reader sees the sign change). Only floating-point values are rewritten: on a NumPy
bool array ``-b`` raises where ``a - b`` might not.
"""

from __future__ import annotations

from typing import Any

from srcgrad.rules import rule_named

from ..ir.core import Block, Function, Op, Value, const_value
from .rewrite import replace_uses
from .simplify import _floating

_PRODUCTS = ("multiply", "divide")
# helpers linear in one argument that only sum, select or copy its numbers (never round a
# product), so ``f(-u) == -f(u)`` exactly: a negation moves out through them and the
# reader subtracts. It then negates the reduced or selected values, not the full array
# (``picked(unbroadcast(-dz, s), ...)``, the max shift's adjoint, negated lane sums)
_LINEAR = {"unbroadcast": ("x",), "unreduce": ("x",), "picked": ("g",)}


def fold_negations(fn: Function) -> None:
    uses = fn.body.use_counts()
    mapping: dict[Value, Value] = {}
    _block(fn.body, uses, mapping)
    replace_uses(fn, mapping)


def _block(block: Block, uses: dict[int, int], mapping: dict[Value, Value]) -> None:
    for op in block.ops:
        for region in op.regions:
            _block(region, uses, mapping)
        if len(op.outputs) != 1 or op.regions:
            continue
        # read through earlier replacements, so a negation already folded is not folded
        # again by its reader
        op.args = {k: _remap(a, mapping) for k, a in op.args.items()}
        new = _rewrite(op, uses)
        if new is not None:
            if new.name is None and op.out.name is not None:
                new.name = op.out.name
            mapping[op.out] = new
            # ``new``'s readers are now also ``op``'s: no longer a value read once
            uses[new.id] = uses.get(new.id, 0) + uses.get(op.out.id, 0)


def _remap(a: Any, mapping: dict[Value, Value]) -> Any:
    if isinstance(a, tuple):
        return tuple(_remap(x, mapping) for x in a)
    return mapping.get(a, a) if isinstance(a, Value) else a


# a result of these is floating point whatever its (numeric) inputs: true division and
# transcendental functions of bools and ints give floats
_ALWAYS_FLOAT = frozenset({"divide", "sin", "cos", "tan", "exp", "log", "sqrt", "tanh",
                           "log1p", "expm1", "sinh", "cosh", "arctan", "arcsin", "arccos"})
# a result of these is floating point when one input is (float + bool array is float)
_FLOAT_IF_ANY = frozenset({"add", "subtract", "multiply", "negative"})


def _floatish(v: Value, depth: int = 0) -> bool:
    """Known to hold floating-point numbers: typed so, or (derivative code, whose values
    are untyped) computed by arithmetic that makes floats from its operands."""
    if _floating(v):
        return True
    op = v.op
    if op is None or depth > 40 or len(op.outputs) != 1 or op.regions:
        return False
    if op.prim in _ALWAYS_FLOAT:
        return True
    return op.prim in _FLOAT_IF_ANY and any(_floatish(w, depth + 1) for w in op.operands())


def _negated(v: object) -> Value | None:
    """``u`` when ``v`` is ``negative(u)`` of a floating-point ``u``."""
    if isinstance(v, Value) and v.op is not None and v.op.prim == "negative":
        u = v.op.args.get("x")
        if isinstance(u, Value) and _floatish(u):
            return u
    return None


def _strip(v: object, uses: dict[int, int], *, commit: bool) -> Value | None:
    """The value ``-v`` without a ``negative`` op: ``u`` for ``v = negative(u)``; for a
    product or quotient read only here whose negating operand strips, the same op with
    that operand replaced (applied to the IR only when ``commit``)."""
    u = _negated(v)
    if u is not None:
        return u
    if not (isinstance(v, Value) and v.op is not None
            and (v.op.prim in _PRODUCTS or v.op.prim in _LINEAR)
            and len(v.op.outputs) == 1 and uses.get(v.id) == 1):
        return None
    keys = ("x", "y") if v.op.prim == "multiply" else _LINEAR.get(v.op.prim, ("x",))
    for k in keys:
        inner = v.op.args.get(k)
        # a ``negative`` is only read through (others may read it too); a product is
        # changed in place, so only one read here
        if isinstance(inner, Value) and (_negated(inner) is not None or (
                uses.get(inner.id) == 1 and _strip(inner, uses, commit=False) is not None)):
            if commit:
                v.op.args = {**v.op.args, k: _strip(inner, uses, commit=True)}
            return v
    return None


def _retarget(op: Op, prim: str, x: Value, y: Value) -> None:
    op.prim, op.args = prim, {"x": x, "y": y}
    op.attrs = {**op.attrs, "rule": rule_named(prim)}


def _rewrite(op: Op, uses: dict[int, int]) -> Value | None:
    a = op.args
    x, y = a.get("x"), a.get("y")
    if op.prim in ("add", "subtract") and set(a) == {"x", "y"}:
        if not (isinstance(x, Value) and isinstance(y, Value)):
            return None
        flip = "subtract" if op.prim == "add" else "add"
        if _strip(y, uses, commit=False) is not None:
            _retarget(op, flip, x, _strip(y, uses, commit=True))
        elif op.prim == "add" and _strip(x, uses, commit=False) is not None:
            _retarget(op, "subtract", y, _strip(x, uses, commit=True))
        return None
    if op.prim == "multiply" and set(a) == {"x", "y"}:
        for one, other in ((x, y), (y, x)):
            ok, c = const_value(one) if isinstance(one, Value) else (False, None)
            if ok and type(c) is float and c == -1.0 and isinstance(other, Value) \
                    and _floatish(other):
                op.prim, op.args = "negative", {"x": other}
                op.attrs = {**op.attrs, "rule": rule_named("negative")}
                return None
        return None
    if op.prim == "negative" and _negated(x) is not None:
        return _negated(x)  # made here from ``-1.0 * t`` after ``simplify`` ran
    if op.prim == "negative" and isinstance(x, Value) and x.op is not None \
            and x.op.prim in _PRODUCTS:
        stripped = _strip(x, uses, commit=False)
        if stripped is not None:
            return _strip(x, uses, commit=True)
    return None
