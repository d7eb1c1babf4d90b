"""The tangent of a root or inverse power the user wrote (``u ** 0.5``, ``u ** -0.5``,
``u ** -1``): computed from the user's value rather than by a second ``pow``.

Forward mode writes the tangent of ``y = u ** 0.5`` by the power rule, ``du * 0.5 *
u ** -0.5``: a second ``pow`` call (``math.pow``, guarded) beside the user's. A person
writes ``du * 0.5 / y``, reusing the root just computed; in a loop of one float that
call is a third of the time of a step. Before/after (the emitted code of
``y = (y + x) ** 0.5`` in a loop)::

    _t1 = y + x                              _t1 = y + x
    _t2 = dy + 1.0                           y = _t1 ** 0.5
    y = _t1 ** 0.5                           if _t1 > 0.0:
    try:                                         dy = (dy + 1.0) * 0.5 / y
        _t3 = math.pow(_t1, -0.5)            else:
    except (ArithmeticError, ValueError):        dy = (dy + 1.0) * 0.5 * float(
        _t3 = as_python(np.power(...))               np.power(_t1, -0.5))
    dy = _t2 * 0.5 * _t3

Why the test ``u > 0.0``: the derivative keeps NumPy's semantics, so ``u ** -0.5`` is inf
at ``u == 0`` and nan for ``u < 0``, where the user's Python ``u ** 0.5`` is 0.0 or
complex (``(-4.0) ** 0.5`` is about ``2j``). For ``u > 0`` (inf and subnormals included)
the root is a positive float, so the division cannot raise, and ``a / y`` is
``a * u ** -0.5`` within an ulp or two (srcgrad's own rounding); elsewhere the product is
computed as before, with NumPy's power (the same value the guarded ``math.pow`` gave).
The user's values are untouched: only the tangent's ``power`` and its product change.

The same for ``y = u ** c`` with ``-1 <= c < 0`` (``c - 1`` exact): its tangent's
``u ** (c - 1)`` is ``y / u``, written ``a * y / u`` under the same test. For ``0 < u <
inf`` the user's ``y`` is a normal float (or Python raised OverflowError computing it; for
``c == -1`` it is subnormal only where ``u ** -2`` is below the float range), so
the quotient is within an ulp or two of the power (and keeps a tangent that the power lets
underflow: ``(1e300) ** -1.5`` is 0 where ``1e-150 / 1e300`` times a large ``a`` is not);
at ``u == inf``, ``y == 0`` and the quotient is 0 as the power is. Other exponents keep
the power: ``0 < c < 1`` has ``inf / inf`` at ``u == inf``, and ``|c| > 1`` lets ``y``
underflow where ``u ** (c - 1)`` does not.

Two steps, because the tangent's ``power`` can only be told from the user's while forward
mode's mark (``TANGENT_CODE``) is on it, and the new form must not reach the IR that a
transform composed on this derivative differentiates (its ``root_quotient`` op has no
derivative rule):

- :func:`mark_root_tangents`, a pass before ``regroup_tangents`` (which drops the marks),
  marks the tangent's ``power(x=u, y=c - 1)`` of a Python float ``u``;
- :func:`reciprocal_roots`, on the copy that is emitted (``pipeline.for_emission``), finds
  the user's ``u ** c`` before each marked power and rewrites the product that reads it
  (``a * u ** (c - 1)`` -> ``root_quotient(x=a, root=y, base=u)``; a power read more
  than once, or by anything else, becomes the quotient of ``1.0``).
"""

from __future__ import annotations

import math

from ..ir import types as T
from ..ir.builder import clone_function
from ..ir.core import PYTHON_SPELLING, TANGENT_CODE, Block, Function, Op, Value, const_value

# An op attribute on a tangent's ``power(x=u, y=c - 1)`` of a Python float ``u`` (set by
# :func:`mark_root_tangents`, its value is ``c``): srcgrad's derivative code, which may
# read the user's ``u ** c``
ROOT_TANGENT = "root_tangent"
# The op :func:`reciprocal_roots` makes, ``x * base ** (c - 1)`` with the user's ``root =
# base ** c`` at hand (attribute ``exponent``: c): ``x / root`` (c == 0.5) or ``x * root /
# base`` where ``base > 0.0``, else the power as before (printed by ``backend/floats.py``)
ROOT_QUOTIENT = "root_quotient"


def _exponent_read(c: float) -> bool:
    """Whether the tangent of ``u ** c`` may read the user's value: c == 0.5 (``1 / y``),
    or -1 <= c < 0 (``y / u``: for ``0 < u < inf`` the user's ``u ** c`` is a normal float
    or has raised OverflowError, so the quotient loses nothing; at ``u == inf`` it is 0 as
    the power is). c - 1 must be exact, so both forms compute the same power of u."""
    return (c == 0.5 or -1.0 <= c < 0.0) and (c - 1.0) + 1.0 == c


def mark_root_tangents(fn: Function) -> None:
    for op in fn.body.walk():
        e = _exponent(op) if op.attrs.get(TANGENT_CODE) else None
        if e is not None and _exponent_read(e + 1.0):
            op.attrs[ROOT_TANGENT] = e + 1.0


def _exponent(op: Op) -> float | None:
    """``c`` if ``op`` is ``power(x=u, y=c)`` of a Python float ``u`` and a constant c."""
    if op.prim != "power" or len(op.outputs) != 1 or set(op.args) != {"x", "y"}:
        return None
    u, c = op.args["x"], op.args["y"]
    if not isinstance(u, Value) or not isinstance(c, Value) or u.type is None \
            or u.type.kind != "float":
        return None
    ok, value = const_value(c)
    return float(value) if ok and type(value) in (int, float) and math.isfinite(value) \
        else None


def reciprocal_roots(fn: Function) -> Function:
    """``fn``, or a copy with each marked tangent power that has the user's root beside it
    rewritten as a division by that root (``fn`` itself is left as it is)."""
    if not any(op.attrs.get(ROOT_TANGENT) and _root_beside(block, op) is not None
               for block, op in _ops_with_blocks(fn.body)):
        return fn
    copy, mapping = clone_function(fn)
    for old, new in mapping.items():  # (names: the adjoint of ``x`` is still ``dx``)
        if old.adjoint_of is not None:
            new.adjoint_of = mapping.get(old.adjoint_of, old.adjoint_of)
    uses = copy.body.use_counts()
    for block, op in list(_ops_with_blocks(copy.body)):
        if op.attrs.get(ROOT_TANGENT):
            root = _root_beside(block, op)
            if root is not None:
                _rewrite(block, op, root, uses)
    return copy


def _ops_with_blocks(block: Block):  # type: ignore[no-untyped-def]
    for op in block.ops:
        yield block, op
        for region in op.regions:
            yield from _ops_with_blocks(region)


def _root_beside(block: Block, power: Op) -> Value | None:
    """The user's ``u ** c`` (Python's semantics) computed before ``power`` (``u ** (c -
    1)``) in its block, on the same ``u``."""
    c, u = power.attrs[ROOT_TANGENT], power.args["x"]
    if _exponent(power) != c - 1.0:  # (a pass rewrote the power since it was marked)
        return None
    for op in block.ops:
        if op is power:
            return None
        if op.attrs.get(PYTHON_SPELLING) and op.args.get("x") is u and _exponent(op) == c:
            return op.out
    return None


def _rewrite(block: Block, power: Op, root: Value, uses: dict[int, int]) -> None:
    reader = _only_product(block, power.out, uses)
    if reader is not None:
        # ``a * u ** -0.5`` -> ``a / y``: one division where the product was
        other = reader.args["y" if reader.args["x"] is power.out else "x"]
        reader.prim = ROOT_QUOTIENT
        reader.args = {"x": other, "root": root, "base": power.args["x"]}
        reader.attrs = {"exponent": power.attrs[ROOT_TANGENT]}
        block.ops.remove(power)
        return
    one = Op("const", {}, [Value(type=T.FLOAT)], {"value": 1.0})
    block.ops.insert(block.ops.index(power), one)
    power.prim = ROOT_QUOTIENT
    power.args = {"x": one.out, "root": root, "base": power.args["x"]}
    power.attrs = {"exponent": power.attrs[ROOT_TANGENT]}


def _only_product(block: Block, v: Value, uses: dict[int, int]) -> Op | None:
    """The one op reading ``v`` if it is a product of ``v`` and another value, in ``block``
    itself. (A reader of a tangent is derivative code too, whatever its spelling: the
    product of a tangent's term by a user's ``*`` takes that spelling. Its fast form
    cannot raise where the product did not: it divides by a positive float.)"""
    if uses.get(v.id) != 1:
        return None
    for op in block.ops:
        if op.prim == "multiply" and set(op.args) == {"x", "y"} and len(op.outputs) == 1 \
                and (op.args["x"] is v) != (op.args["y"] is v):
            return op
    return None
