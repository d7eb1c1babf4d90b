"""Scalar tangent arithmetic regrouped the way a person writes a derivative by hand.

Forward mode writes each op's tangent by its rule and sums the rules' terms, so a loop of
one float gets (left) where a person writes (right):

    dy = dy * x + y + dy * math.cos(y)      dy = dy * (x + math.cos(y)) + y
    dy = 1.0 - dy * 2.0 * y * 0.3           dy = 1.0 - 0.6 * dy * y
    dq = dy + (1.0 / y - dy * q / y)        dq = dy + (1.0 - dy * q) / y

This pass runs after the folds, before CSE. It reads each tree of tangent arithmetic
(``+ - * /`` and negation, each op read once, in one block) as a sum of terms
``c * f1 * ... * fk / d``, then rewrites it with:

- a term's constants multiplied into one ``c`` at compile time (and a constant divisor
  into ``c`` too), constant terms summed into one;
- the terms over the same divisor ``d`` summed before one division;
- a factor common to several terms taken out once (``dy * (x + c)``), while that saves a
  multiplication.

A tree is rewritten only when the new one costs fewer operations (a division counts as
two: CPython has no fast path for ``/`` on floats), so code already written well stays
as it is.

What may be regrouped, and what not: only ops forward mode made for a tangent (marked
``TANGENT_CODE`` by ``ad/forward.py``), never the user's arithmetic, whose values stay bit
for bit as written. The grouping of a tangent's terms is srcgrad's own choice (the chain
rule fixes the value in exact arithmetic, not the order of its rounding): a regrouped
tangent differs from the literal one by a few units in the last place, as any other
order of the rules' terms would, and the tests compare derivatives with tolerances. Only
numbers are regrouped (Python floats, float64 NumPy scalars): an array's evaluation order
also decides its temporaries. A regrouped tangent may overflow to inf where the literal
one stayed finite (or the other way) only where a term itself is within a factor of the
float range's edge. Runs once: it removes the marks, so the second round of passes and a
transform composed on this derivative see plain arithmetic.

Also, anywhere (the user's code too): ``v / c`` with ``v`` a float and ``c`` a power of two
is ``v * (1 / c)``, the same number exactly (both round the same real number), cheaper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from srcgrad.rules import rule_named

from ..ir import types as T
from ..ir.core import (
    NUMBER_SIGN,
    PYTHON_SPELLING,
    TANGENT_CODE,
    Block,
    Function,
    Op,
    Value,
    const_value,
)
from .dce import dce
from .rewrite import replace_uses

_SUMS = ("add", "subtract", "negative")
_ARITHMETIC = ("add", "subtract", "negative", "multiply", "divide", "power")
# (``**`` runs NumPy's or libm's pow: a call, not an instruction)
_COST = {"add": 1, "subtract": 1, "negative": 1, "multiply": 1, "divide": 2, "power": 3}


@dataclass
class _Term:
    """``coef * factors[0] * ... / divisor`` (``coef`` carries the sign)."""

    coef: float
    factors: list[Value] = field(default_factory=list)
    divisor: Value | None = None


def regroup_tangents(fn: Function) -> None:
    if not any(TANGENT_CODE in op.attrs for op in fn.body.walk()):
        _halve_everywhere(fn.body)
        return
    dce(fn)  # (a dead reader, e.g. a negation already folded, would count as a use)
    uses = fn.body.use_counts()
    mapping: dict[Value, Value] = {}
    _block(fn.body, uses, mapping)
    replace_uses(fn, mapping)
    for op in fn.body.walk():
        op.attrs.pop(TANGENT_CODE, None)


def _block(block: Block, uses: dict[int, int], mapping: dict[Value, Value]) -> None:
    for op in block.ops:
        for region in op.regions:
            _block(region, uses, mapping)
    _halve_by_multiplying(block)
    for op in block.ops:
        _python_sign(op)
    here = {id(op) for op in block.ops}
    absorbed: set[int] = set()
    for op in reversed(list(block.ops)):  # outermost first: its tree takes in the inner ops
        if id(op) in absorbed or not _tangent_arithmetic(op):
            continue
        tree = _Tree(uses, here)
        terms = tree.sum(op.out, 1.0, root=True)
        if terms is None:
            continue
        made: list[Op] = []
        spelling = tree.division_spelling()
        if spelling is False:  # divisions of two spellings: which one a group keeps is open
            continue
        builder = _Builder(made, spelling, op.line)
        result = builder.sum(_regrouped(terms))
        if sum(_COST[o.prim] for o in made if o.prim in _COST) >= tree.cost:
            continue
        absorbed.update(tree.interior)
        at = block.ops.index(op)
        if result.op is not None and result.op in made and result.op is made[-1]:
            last = made.pop()
            op.prim, op.args, op.attrs = last.prim, last.args, last.attrs
        else:
            mapping[op.out] = result
        block.ops[at:at] = made


def _tangent_arithmetic(op: Op) -> bool:
    # (its own type is not read: a rule's derivative on floats is typed as NumPy computed
    # it on examples, often np.float64 where the emitted operator gives a Python float;
    # the tree is a number when its leaves are)
    return bool(op.attrs.get(TANGENT_CODE)) and op.prim in _ARITHMETIC \
        and len(op.outputs) == 1 and all(isinstance(a, Value) for a in op.args.values())


def _number(v: Value, depth: int = 0) -> bool:
    """A Python float or int, a float64 NumPy scalar or either (never an array): by its
    type, or, for tangent arithmetic typed before its seed was known, by its operands'."""
    t = v.type
    if t is not None and (t.kind in ("float", "int") or t == T.NUMBER or (
            t.kind == "scalar" and t.dtype == "float64")):
        return True
    op = v.op
    return op is not None and depth < 8 and _tangent_arithmetic(op) and all(
        _number(w, depth + 1) for w in op.operands())


def _constant(v: Value) -> float | None:
    ok, c = const_value(v)
    if not ok or type(c) not in (int, float) or (type(c) is int and abs(c) > 2 ** 53):
        return None
    return float(c)


class _Tree:
    """Reads one tree of tangent arithmetic into terms; ``interior`` holds its ops' ids."""

    def __init__(self, uses: dict[int, int], here: set[int]) -> None:
        self.uses, self.here = uses, here
        self.interior: set[int] = set()
        self.cost = 0
        self.spellings: list[Any] = []

    def _inner(self, v: Value, prims: tuple[str, ...], root: bool = False) -> Op | None:
        op = v.op
        if op is None or op.prim not in prims or not _tangent_arithmetic(op) \
                or id(op) not in self.here or (not root and self.uses.get(v.id) != 1):
            return None
        if op.prim == "power" and _constant(op.args["y"]) not in (2.0, 3.0):
            return None
        self.interior.add(id(op))
        self.cost += _COST[op.prim]
        return op

    def sum(self, v: Value, sign: float, root: bool = False) -> list[_Term] | None:
        op = self._inner(v, _SUMS, root)
        if op is None:
            term = self.product(v, root)
            if term is None:
                return None
            term.coef *= sign
            return [term]
        if op.prim == "negative":
            return self.sum(op.args["x"], -sign)
        left = self.sum(op.args["x"], sign)
        right = self.sum(op.args["y"], -sign if op.prim == "subtract" else sign)
        return None if left is None or right is None else left + right

    def product(self, v: Value, root: bool = False) -> _Term | None:
        term = _Term(1.0)
        if not self._factors(v, term, root):
            return None
        return term if math.isfinite(term.coef) and term.coef != 0.0 else None

    def _factors(self, v: Value, term: _Term, root: bool = False) -> bool:
        c = _constant(v)
        if c is not None:
            term.coef *= c
            return True
        op = self._inner(v, ("multiply", "negative", "divide", "power"), root)
        if op is None:
            term.factors.append(v)
            return _number(v)
        if op.prim == "power":  # a rule's ``x ** 2`` (``y ** 3``'s derivative): ``x * x``
            base = op.args["x"]
            term.factors += [base] * int(_constant(op.args["y"]) or 0)
            return _number(base)
        if op.prim == "negative":
            term.coef = -term.coef
            return self._factors(op.args["x"], term)
        if op.prim == "multiply":
            return self._factors(op.args["x"], term) and self._factors(op.args["y"], term)
        d = op.args["y"]
        c = _constant(d)
        if c is not None and c != 0.0:
            term.coef /= c
        elif c is None and term.divisor is None and _number(d):
            term.divisor = d
            self.spellings.append(op.attrs.get(PYTHON_SPELLING))
        else:
            return False
        return self._factors(op.args["x"], term)

    def division_spelling(self) -> Any:
        """The spelling every division of the tree had (``False`` when they differ)."""
        found = set(self.spellings)
        return False if len(found) > 1 else (found.pop() if found else None)


def _regrouped(terms: list[_Term]) -> list[_Term]:
    """Constant terms summed, terms over one divisor summed before it, common factors out."""
    constants = [t for t in terms if not t.factors and t.divisor is None]
    others = [t for t in terms if t.factors or t.divisor is not None]
    if len(constants) > 1:
        total = math.fsum(t.coef for t in constants)
        constants = [_Term(total)] if total != 0.0 and math.isfinite(total) else constants
    grouped: list[_Term] = []
    by_divisor: dict[int, list[_Term]] = {}
    for t in others:
        if t.divisor is not None:
            by_divisor.setdefault(t.divisor.id, []).append(t)
    for t in others:
        group = by_divisor.get(t.divisor.id) if t.divisor is not None else None
        if group is None or len(group) == 1:
            grouped.append(t)
        elif group[0] is t:
            sign = -1.0 if all(u.coef < 0 for u in group) else 1.0
            inner = [_Term(sign * u.coef, list(u.factors)) for u in group]
            grouped.append(_Term(sign, [_Sum(_regrouped(inner))], t.divisor))  # type: ignore[list-item]
    return _factored(grouped) + constants


class _Sum:
    """A sum of terms standing as one factor of a term (built before the term is)."""

    def __init__(self, terms: list[_Term]) -> None:
        self.terms = terms


def _factored(terms: list[_Term]) -> list[_Term]:
    """The factor read by most terms taken out of them, while that saves a multiplication:
    ``a * f + b * f`` is ``f * (a + b)``."""
    counts: dict[int, tuple[int, Value]] = {}
    for t in terms:
        for f in {id(f): f for f in t.factors}.values():
            n, _ = counts.get(id(f), (0, f))
            counts[id(f)] = (n + 1, f)
    best = max(counts.values(), key=lambda nf: nf[0], default=None)
    if best is None or best[0] < 2:
        return terms
    f = best[1]
    sharing = [t for t in terms if any(g is f for g in t.factors)]
    # each term but a plain +-f loses one multiplication; taking f out costs one. Terms
    # that are constants times f alone become one constant: ``dw - 0.01 * dw`` is
    # ``dw * 0.99``, one multiplication for a multiplication and a subtraction
    constants_only = all(len(t.factors) == 1 and t.divisor is None for t in sharing)
    if not constants_only and sum(1 for t in sharing if len(t.factors) > 1 or t.divisor
                                  is not None or abs(t.coef) != 1.0) <= 1:
        return terms
    rests = []
    for t in sharing:
        rest = list(t.factors)
        rest.remove(f)
        rests.append(_Term(t.coef, rest, t.divisor))
    out: list[_Term] = []
    for t in terms:
        if t is sharing[0]:
            out.append(_Term(1.0, [f, _Sum(_regrouped(rests))]))  # type: ignore[list-item]
        elif t not in sharing:
            out.append(t)
    return _factored(out)


class _Builder:
    """Writes terms back as ops (appended to ``made``): a Python float where both
    operands are Python numbers, else ``NUMBER`` (a float or a float64 NumPy scalar)."""

    def __init__(self, made: list[Op], spelling: Any, line: int | None) -> None:
        self.made, self.spelling, self.line = made, spelling, line

    def _op(self, prim: str, args: dict[str, Value], spelling: Any = None) -> Value:
        # (NUMBER, not a NumPy scalar, where not both are Python numbers: a tangent typed
        # np.float64 by its rule's examples may be a Python float, whose division by zero
        # raises; a value of unknown kind keeps the emitted division guarded)
        out_type = T.FLOAT if all(a.type is not None and a.type.is_python_number
                                  for a in args.values()) else T.NUMBER
        attrs: dict[str, Any] = {"rule": rule_named(prim)}
        if spelling is not None:
            attrs[PYTHON_SPELLING] = spelling
        op = Op(prim, args, [Value(type=out_type)], attrs, line=self.line)
        self.made.append(op)
        return op.out

    def _const(self, c: float) -> Value:
        op = Op("const", {}, [Value(type=T.FLOAT)], {"value": c})
        self.made.append(op)
        return op.out

    def sum(self, terms: list[_Term]) -> Value:
        # a positive term first, so the sum needs no negation unless every term is negative
        terms = sorted(terms, key=lambda t: t.coef < 0)
        negate = terms[0].coef < 0
        total: Value | None = None
        for t in terms:
            value = self.term(t, abs(t.coef))
            if total is None:
                total = value
            else:
                prim = "add" if (t.coef < 0) == negate else "subtract"
                total = self._op(prim, {"x": total, "y": value})
        assert total is not None
        return self._op("negative", {"x": total}) if negate else total

    def term(self, t: _Term, coef: float) -> Value:
        parts = [self.sum(f.terms) if isinstance(f, _Sum) else f for f in t.factors]
        if coef != 1.0 or not parts:
            parts.insert(0, self._const(coef))
        value = parts[0]
        for p in parts[1:]:
            value = self._op("multiply", {"x": value, "y": p})
        if t.divisor is not None:
            value = self._op("divide", {"x": value, "y": t.divisor}, self.spelling)
        return value


def _halve_everywhere(block: Block) -> None:
    for op in block.ops:
        for region in op.regions:
            _halve_everywhere(region)
    _halve_by_multiplying(block)


def _halve_by_multiplying(block: Block) -> None:
    """``v / 2.0`` on a float is ``v * 0.5``: the same number, exactly."""
    for op in list(block.ops):
        if op.prim != "divide" or len(op.outputs) != 1 or set(op.args) != {"x", "y"}:
            continue
        x, y = op.args["x"], op.args["y"]
        c = _constant(y) if isinstance(y, Value) else None
        if c is None or not isinstance(x, Value) or x.type is None or x.type.kind != "float" \
                or not _power_of_two(c):
            continue
        const = Op("const", {}, [Value(type=T.FLOAT)], {"value": 1.0 / c})
        block.ops.insert(block.ops.index(op), const)
        op.prim, op.args["y"] = "multiply", const.out
        op.attrs["rule"] = rule_named("multiply")


def _power_of_two(c: float) -> bool:
    """``c`` and ``1 / c`` both exact powers of two (so ``v / c == v * (1 / c)``)."""
    if c == 0.0 or not math.isfinite(c):
        return False
    mantissa, _ = math.frexp(abs(c))
    r = 1.0 / c
    return mantissa == 0.5 and math.isfinite(r) and math.frexp(abs(r))[0] == 0.5


def _python_sign(op: Op) -> None:
    """A tangent's ``sign(x)`` of a Python float: a Python float, written with comparisons
    (see ``backend/floats.py``), not a NumPy call returning a NumPy scalar."""
    x = op.args.get("x")
    if op.prim == "sign" and op.attrs.get(TANGENT_CODE) and isinstance(x, Value) \
            and x.type is not None and x.type.kind == "float":
        op.attrs[NUMBER_SIGN] = True
        op.out.type = T.FLOAT
