"""Quotients by one divisor combined: ``a/b - c/b`` is ``(a - c)/b``, ``(a/b) * e`` is
``a * y`` where the function already has ``y = e/b``, and ``a/b`` is ``a * h`` where it
has ``h = 1.0/b`` and ``b = 1.0 + np.exp(...)`` (a sigmoid).

Runs in the pipeline after ``fold_negations`` (which makes ``a + -u`` a subtraction), in
every block. The adjoint of a normalisation ``y = e / b`` (``b`` a ``keepdims`` sum of ``e``:
a softmax) reaches ``e`` as two quotients by ``b``, the division's own ``g / b`` and the
sum's broadcast ``sum(g * y) / b``; the exponential before it then multiplies by ``e``::

    %22 = divide(x=%g, y=%b)                   %40 = subtract(x=%g, y=%S)
    %25 = divide(x=%S, y=%b)              ->   %27 = multiply(x=%40, y=%y)
    %26 = subtract(x=%22, y=%25)               # %y = divide(x=%e, y=%b), the forward's
    %27 = multiply(x=%26, y=%e)

which is the hand-written softmax adjoint ``y * (g - sum(g * y))``: two full-size
divisions fewer, and ``e`` no longer read by the reverse sweep (in a loop it is then not
saved on the tape per iteration).

The division's own two adjoints share their quotient the same way: ``g / y`` for ``x``
and ``-g * out / y`` for ``y`` become ``q = g / y`` and ``-q * out``, as by hand
(``(u * v) / b`` is ``q * v`` where ``q = u/b`` is already visible)::

    %12 = divide(x=%dm, y=%k)                  %12 = divide(x=%dm, y=%k)
    %13 = negative(x=%dm)                ->    %16 = negative(x=%12)
    %14 = multiply(x=%13, y=%m)                %17 = multiply(x=%16, y=%m)
    %15 = divide(x=%14, y=%k)

A sigmoid written out, ``h = 1.0 / (1.0 + e)`` with ``e = np.exp(-z)``, has the adjoint
``dh * h / (1.0 + e) * e``; with ``h`` known::

    %9 = divide(x=%p, y=%u)     # %u = add(1.0, %e), %e = exp(...)
                          ->   %9 = multiply(x=%p, y=%h)    # %h = divide(x=1.0, y=%u)

(``dh * h * h * e``): a division fewer, and ``1.0 + e`` no longer kept for the reverse
sweep. ``u >= 1`` (or NaN) there, so ``1/u`` neither overflows nor loses digits as a
subnormal, and the product differs from the quotient by rounding only.

Only srcgrad's own arithmetic is rewritten (a value computed from a cotangent,
:func:`_from_adjoint`): a value the user's code computes stays as written, bit for bit.

In a reverse loop body the operands are values popped from the tape; a popped value
stands for the forward value pushed at its position (``blocks.popped_items``), so ``y`` is
found there too, popped by the same pop as ``e`` and ``b`` (one iteration's values, never
another's).

The divisor must be a NumPy array (Python numbers keep their own semantics: a division
by zero raises). Each rewritten quotient or product must be read only by the op rewritten
(no other reader keeps it alive; at most a negation is added). All are identities of real
arithmetic that change rounding only: broadcasting gives the same shape either way
(``(a - c)/b`` and ``a/b - c/b``; ``a * (e/b)`` and ``(a/b) * e``; ``(u * v)/b`` and
``(u/b) * v``; ``a * (1.0/u)`` and ``a/u``), and the result dtype is the same.
"""

from __future__ import annotations

from typing import Any

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value, const_value
from .blocks import popped_items
from .rewrite import replace_uses


def combine_quotients(fn: Function) -> None:
    popped = popped_items(fn)
    uses = fn.body.use_counts()
    quotients: dict[tuple[int, int], Value] = {}  # (e, b) -> y = e / b (forward values)
    for op in fn.body.walk():
        if _is(op, "divide") and all(isinstance(op.args[k], Value) for k in ("x", "y")):
            key = (_canon(op.args["x"], popped).id, _canon(op.args["y"], popped).id)
            quotients.setdefault(key, op.out)
    mapping: dict[Value, Value] = {}
    _block(fn.body, {}, quotients, popped, uses, mapping)
    replace_uses(fn, mapping)


def _is(op: Op | None, name: str) -> bool:
    if op is None or len(op.outputs) != 1 or set(op.args) != {"x", "y"}:
        return False
    rule = op.attrs.get("rule")
    return rule is not None and rule.name == name


def _canon(v: Value, popped: dict[int, Value]) -> Value:
    return popped.get(v.id, v)


def _quotient(v: object, uses: dict[int, int]) -> Op | None:
    """The ``divide`` making ``v``, when nothing else reads ``v``."""
    if not isinstance(v, Value) or uses.get(v.id) != 1 or not _is(v.op, "divide"):
        return None
    op = v.op
    return op if all(isinstance(op.args[k], Value) for k in ("x", "y")) else None


def _array(v: Value, popped: dict[int, Value]) -> bool:
    """Known to be a NumPy array (so the arithmetic is NumPy's: a Python float's division
    raises on zero, and its spelling and guards are the backend's business)."""
    t = _canon(v, popped).type
    return t is not None and t.kind == "array"


def _new(prim: str, x: Value, y: Value, like: Op) -> Op:
    out = like.out
    return Op(prim, {"x": x, "y": y}, [Value(type=out.type, adjoint_of=out.adjoint_of)],
              {"rule": RULES[prim]}, line=like.line)


def _block(block: Block, visible: dict[int, Value], quotients: dict[tuple[int, int], Value],
           popped: dict[int, Value], uses: dict[int, int],
           mapping: dict[Value, Value]) -> None:
    """``visible``: forward value id -> a value standing for it here (itself, or popped)."""
    visible = dict(visible)
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region, visible, quotients, popped, uses, mapping)
        # (a rewrite just made may feed this op: read it now, not after the pass)
        op.args = {k: mapping.get(a, a) if isinstance(a, Value) else a
                   for k, a in op.args.items()}
        made: list[Op] | None = None
        if _is(op, "subtract") or _is(op, "add"):
            made = _common_divisor(op, uses, popped)
        elif _is(op, "multiply"):
            product = _times_known_quotient(op, visible, quotients, popped, uses)
            made = None if product is None else [product]
        elif _is(op, "divide"):
            made = _known_quotient_times(op, visible, quotients, popped, uses)
            if made is None:
                product = _times_reciprocal(op, visible, quotients, popped)
                made = None if product is None else [product]
        ops.append(op)  # (when rewritten, dead now: dce drops it)
        if made is not None:
            ops.extend(made)
            mapping[op.out] = made[-1].out
        for o in op.outputs:
            visible.setdefault(_canon(o, popped).id, o)
    block.ops = ops


def _common_divisor(op: Op, uses: dict[int, int],
                    popped: dict[int, Value]) -> list[Op] | None:
    """``a/b +- c/b`` -> ``(a +- c)/b``."""
    left, right = _quotient(op.args["x"], uses), _quotient(op.args["y"], uses)
    if left is None or right is None or left.args["y"] is not right.args["y"] \
            or not _array(left.args["y"], popped) or not _from_adjoint(op.out):
        return None
    inner = _new(op.attrs["rule"].name, left.args["x"], right.args["x"], op)
    outer = _new("divide", inner.out, left.args["y"], op)
    # the old quotients are read by nothing now
    uses[left.out.id] = uses[right.out.id] = 0
    # the new quotient is read once, by what read ``op``
    uses[outer.out.id] = uses.get(op.out.id, 0)
    return [inner, outer]


def _times_known_quotient(op: Op, visible: dict[int, Value],
                          quotients: dict[tuple[int, int], Value],
                          popped: dict[int, Value], uses: dict[int, int]) -> Op | None:
    """``(a/b) * e`` (either order) -> ``a * y`` with ``y = e/b`` visible here."""
    if _quotient(op.args["x"], uses) is None and _quotient(op.args["y"], uses) is None:
        return None  # (no quotient: asked first, as the search below is the costly part)
    if not _from_adjoint(op.out):
        return None
    for name, other in (("x", "y"), ("y", "x")):
        q = _quotient(op.args[name], uses)
        e = op.args[other]
        if q is None or not isinstance(e, Value):
            continue
        a, b = q.args["x"], q.args["y"]
        y = quotients.get((_canon(e, popped).id, _canon(b, popped).id))
        found = visible.get(y.id) if y is not None else None
        if found is None or not _array(b, popped):
            continue
        pops = {id(v.op) for v in (e, b, found) if v.op is not None and v.op.prim == "tape_pop"}
        if len(pops) > 1:
            continue  # popped by different pops: maybe different iterations' values
        uses[q.out.id] = 0
        return _new("multiply", a, found, op) if name == "x" else _new("multiply", found, a, op)
    return None


def _times_reciprocal(op: Op, visible: dict[int, Value],
                      quotients: dict[tuple[int, int], Value],
                      popped: dict[int, Value]) -> Op | None:
    """``a / u`` -> ``a * h`` with ``h = 1.0 / u`` visible here and ``u = c + exp(w)``,
    ``c >= 1`` a constant (so ``u >= 1``: ``h`` is a normal number, or NaN with ``u``)."""
    a, u = op.args["x"], op.args["y"]
    if not isinstance(a, Value) or not isinstance(u, Value) or const_value(a)[0] \
            or not _array(u, popped) or not _at_least_one(_canon(u, popped), popped) \
            or not _from_adjoint(a):
        return None  # (a value of the user's own stays as the user's code computes it)
    for (_, u_id), h in quotients.items():
        one = const_value(h.op.args["x"]) if h.op is not None else (False, None)
        if u_id != _canon(u, popped).id or not one[0] or type(one[1]) not in (int, float) \
                or one[1] != 1:
            continue
        found = visible.get(h.id)
        if found is None or found is op.out:
            continue
        pops = {id(v.op) for v in (u, found) if v.op is not None and v.op.prim == "tape_pop"}
        if len(pops) > 1:
            continue  # popped by different pops: maybe different iterations' values
        return _new("multiply", a, found, op)
    return None


def _at_least_one(u: Value, popped: dict[int, Value]) -> bool:
    """``u`` is ``c + np.exp(w)`` (either order) with a constant ``c >= 1``."""
    if not _is(u.op, "add"):
        return False
    x, y = u.op.args["x"], u.op.args["y"]
    for c, e in ((x, y), (y, x)):
        is_const, value = const_value(c) if isinstance(c, Value) else (False, None)
        if not is_const or type(value) not in (int, float) or not value >= 1:
            continue
        if isinstance(e, Value):
            e = _canon(e, popped)
            rule = e.op.attrs.get("rule") if e.op is not None else None
            if rule is not None and rule.name == "exp" and len(e.op.outputs) == 1:
                return True
    return False


def _from_adjoint(v: Any, depth: int = 8) -> bool:
    """``v`` is computed from a cotangent (``dh * h``, ``-(g / y)``, ``sum(g * y)``):
    srcgrad's own arithmetic, never a value the user's code computes (the forward sweep
    runs before any cotangent exists). Looked for ``depth`` ops up; deeper is "no"."""
    return _from_adjoint_within(v, depth, {})


def _from_adjoint_within(v: Any, depth: int, no_within: dict[int, int]) -> bool:
    """:func:`_from_adjoint`, remembering per question the largest depth each value was
    found "no" within (a "no" within ``d`` ops is a "no" within fewer): a value read by
    several ops (``h * h``, a forward value every adjoint reads) was searched again along
    each path, up to 2**depth searches."""
    if not isinstance(v, Value):
        return False
    if v.adjoint_of is not None:
        return True
    op = v.op
    if depth == 0 or op is None or op.regions or op.prim == "tape_pop":
        return False
    if no_within.get(v.id, -1) >= depth:
        return False
    if any(_from_adjoint_within(w, depth - 1, no_within) for w in op.operands()):
        return True  # (the question is answered: nothing more is looked up)
    no_within[v.id] = depth
    return False


def _known_quotient_times(op: Op, visible: dict[int, Value],
                          quotients: dict[tuple[int, int], Value],
                          popped: dict[int, Value], uses: dict[int, int]) -> list[Op] | None:
    """``(u * v) / b`` -> ``q * v`` with ``q = u/b`` visible here (either factor; ``u`` may
    be ``-w`` with ``q = w/b``, then ``-q * v``): the division's two adjoints ``g / y`` and
    ``-g * out / y`` share their quotient, as by hand."""
    product, b = op.args["x"], op.args["y"]
    if not (isinstance(product, Value) and uses.get(product.id) == 1
            and _is(product.op, "multiply") and _array(b, popped) and _from_adjoint(product)):
        return None
    assert product.op is not None
    for name, other in (("x", "y"), ("y", "x")):
        u, v = product.op.args[name], product.op.args[other]
        if not (isinstance(u, Value) and isinstance(v, Value)):
            continue
        negated = u.op is not None and u.op.prim == "negative" and len(u.op.outputs) == 1 \
            and isinstance(u.op.args.get("x"), Value)
        for w, negate in ((u, False), *(((u.op.args["x"], True),) if negated else ())):
            y = quotients.get((_canon(w, popped).id, _canon(b, popped).id))
            q = visible.get(y.id) if y is not None else None
            if q is None:
                continue
            pops = {id(x.op) for x in (w, b, q) if x.op is not None and x.op.prim == "tape_pop"}
            if len(pops) > 1:
                continue  # popped by different pops: maybe different iterations' values
            if _dtype(v) is not None and _dtype(q) is not None and _dtype(v) != _dtype(q):
                continue  # (a float32 quotient times a float64 factor: rounded narrower)
            uses[product.id] = 0
            uses[q.id] = uses.get(q.id, 0) + 1
            made: list[Op] = []
            if negate:
                made.append(Op("negative", {"x": q}, [Value(type=q.type, adjoint_of=q.adjoint_of)],
                               {"rule": RULES["negative"]}, line=op.line))
                q = made[-1].out
            made.append(_new("multiply", q, v, op) if name == "x" else _new("multiply", v, q, op))
            return made
    return None


def _dtype(v: Value) -> str | None:
    t = v.type
    return t.dtype if t is not None and t.kind in ("array", "scalar") else None
