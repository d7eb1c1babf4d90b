"""A doubling that cancels a halving: ``t + t`` where ``t`` divides by ``2 * s`` becomes
``t`` dividing by ``s``, in every block.

Two rules meet in ``np.sqrt(c * c + 1.0)``: the square root's adjoint ``g / (2 * out)``,
and the product's ``g * c + g * c``, which CSE makes ``t + t``. A person writes
``g / out * c``. Runs after ``cse`` (which makes the two halves one value)::

    %27 = multiply(x=2, y=%9)                %27 = multiply(x=2, y=%9)   (dead unless read)
    %28 = divide(x=%24, y=%27)      ->       %28 = divide(x=%24, y=%9)
    %29 = multiply(x=%28, y=%c)              %29 = multiply(x=%28, y=%c)
    %30 = add(x=%29, y=%29)                  (uses of %30 -> %29)

and the same when the doubling is an accumulation, ``(a + t) + t`` (``dy += t`` twice for
``y * y``) -> ``a + t``. The halving is looked for along the operands of ``t``'s product
and quotient chain, each read only by the next (``t`` itself read only by the doubling),
and only in the numerator of a quotient.

The numbers: ``u / (2 * s)`` is ``(u / s) / 2`` exactly, and halving, then multiplying,
then doubling a float rounds like the product without them, so ``t + t`` is the new ``t``
bit for bit unless a value is subnormal or ``2 * s`` overflows (the new form is then the
more accurate one, as by hand). The accumulation ``(a + t) + t`` and ``a + 2t`` differ in
rounding only. ``s`` must be floating point (``2 * s`` of an int array wraps around) and
the ``2`` a constant two.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value, const_value
from .rewrite import replace_uses
from .simplify import _floating


def cancel_halves(fn: Function) -> None:
    uses = fn.body.use_counts()
    mapping: dict[Value, Value] = {}
    _block(fn.body, uses, mapping)
    replace_uses(fn, mapping)


def _block(block: Block, uses: dict[int, int], mapping: dict[Value, Value]) -> None:
    for op in block.ops:
        for region in op.regions:
            _block(region, uses, mapping)
        if op.prim != "add" or len(op.outputs) != 1 or set(op.args) != {"x", "y"}:
            continue
        x, y = op.args["x"], op.args["y"]
        if not (isinstance(x, Value) and isinstance(y, Value)) or x in mapping or y in mapping:
            continue
        if x is y and uses.get(x.id) == 2 and _halve_once(x, uses):
            mapping[op.out] = x  # t + t -> t
            continue
        # (a + t) + t, either way round: a + t, the inner sum read only here
        for t, inner in ((y, x), (x, y)):
            if not (inner.op is not None and inner.op.prim == "add" and inner.op in block.ops
                    and uses.get(inner.id) == 1 and uses.get(t.id) == 2
                    and set(inner.op.args) == {"x", "y"} and not inner.op.regions):
                continue
            ia, ib = inner.op.args["x"], inner.op.args["y"]
            a = ia if ib is t else ib if ia is t else None
            if a is None or a is t or not _halve_once(t, uses):
                continue
            op.args = {"x": a, "y": t}  # (the inner sum is now dead)
            break


def _halve_once(t: Value, uses: dict[int, int]) -> bool:
    """Find a quotient by ``2 * s`` along ``t``'s chain and make it a quotient by ``s``
    (so ``t`` becomes twice what it was); False, and nothing changed, if there is none."""
    found = _halving(t, uses, depth=0, top=True)
    if found is None:
        return False
    quotient, s = found
    quotient.args = {**quotient.args, "y": s}
    return True


def _halving(v: Value, uses: dict[int, int], depth: int, top: bool) -> tuple[Op, Value] | None:
    op = v.op
    if (op is None or depth > 6 or len(op.outputs) != 1 or op.regions
            or set(op.args) != {"x", "y"} or (not top and uses.get(v.id) != 1)):
        return None
    if op.prim == "divide":
        s = _twice(op.args["y"])
        if s is not None:
            return op, s
        keys: tuple[str, ...] = ("x",)
    elif op.prim == "multiply":
        keys = ("x", "y")
    else:
        return None
    for k in keys:
        inner = op.args[k]
        if isinstance(inner, Value):
            found = _halving(inner, uses, depth + 1, top=False)
            if found is not None:
                return found
    return None


def _twice(m: object) -> Value | None:
    """``s`` when ``m`` is ``2 * s`` or ``s * 2`` of a floating-point ``s``."""
    if not (isinstance(m, Value) and m.op is not None and m.op.prim == "multiply"
            and set(m.op.args) == {"x", "y"}):
        return None
    for two, other in (("x", "y"), ("y", "x")):
        ok, c = const_value(m.op.args[two]) if isinstance(m.op.args[two], Value) else (False, None)
        s = m.op.args[other]
        if ok and type(c) in (int, float) and c == 2 and isinstance(s, Value) and _floating(s):
            return s
    return None
