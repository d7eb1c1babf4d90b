"""Algebraic simplification with *symbolic* constants only.

Rule bodies inlined on constants leave patterns such as ``x ** 1``, ``1.0 * g`` (the seed
of ``grad``) or ``np.where(False, 0.0, t)`` (``power``'s rule with a constant exponent).
These are rewritten; ``0 * x`` is never folded to ``0`` (``0 * inf`` is ``nan``), and a
multiplication by one is dropped only when the other operand is known to be floating
point (``1.0 * int_array`` would change the dtype).

    %0 = power(x=%x, y=1)               (uses of %0 -> %x)
    %1 = where(condition=False, x=0.0, y=%t)   (uses of %1 -> %t)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from srcgrad.rules import rule_named
from srcgrad.rules.helpers import is_basic_index

from ..ir.core import Block, Function, Op, Value, const_value
from .rewrite import replace_uses


def _const(v: Any) -> tuple[bool, Any]:
    if not isinstance(v, Value):
        return False, None
    return const_value(v)


def _is_one(v: Any) -> bool:
    ok, c = _const(v)
    return ok and type(c) in (int, float) and c == 1


def _floating(v: Value) -> bool:
    """Known to hold floating point numbers (so ``1.0 * v`` is ``v``)."""
    if v.adjoint_of is not None:
        return True
    t = v.type
    if t is None:
        return False
    if t.kind == "float":
        return True
    return t.dtype is not None and np.dtype(t.dtype).kind in "fc"


def _simplify(op: Op) -> Value | None:
    a = op.args
    if op.prim == "power" and _is_one(a.get("y")):
        return a["x"] if _floating(a["x"]) else None
    if op.prim == "multiply":
        if _is_one(a.get("y")) and _floating(a["x"]) and _float_one(a["y"], a["x"]):
            return a["x"]
        if _is_one(a.get("x")) and _floating(a["y"]) and _float_one(a["x"], a["y"]):
            return a["y"]
        for one, other in (("x", "y"), ("y", "x")):
            if _numpy_one_of_dtype(a.get(one), a.get(other)):
                return a[other]
    if op.prim == "divide" and _is_one(a.get("y")) and _floating(a["x"]):
        return a["x"]
    if op.prim == "where":
        ok, c = _const(a.get("condition"))
        if ok and isinstance(c, (bool, np.bool_)):
            chosen = a["x"] if c else a["y"]
            if isinstance(chosen, Value) and (chosen.op is None or chosen.op.prim != "const"):
                return chosen  # (a parameter too: power's masks on its argument x)
    if op.prim == "negative":
        x = a["x"]
        if x.op is not None and x.op.prim == "negative":
            return x.op.args["x"]
    if op.prim == "stop_gradient":
        ok, _ = _const(a["x"])
        if ok:
            return a["x"]
    if op.prim == "float" and a["x"].type is not None and a["x"].type.kind == "float":
        return a["x"]
    return None


def _plain_read(op: Op) -> None:
    """``take_written(g, i)`` (the cotangent of ``v`` in ``y[i] = v``) is ``g[i]`` when ``i``
    is an int, a slice or a tuple of those, which cannot name a position twice: emitted as a
    subscript, a loop filling ``y[i]`` pays no helper call per iteration."""
    if op.prim == "take_written" and _basic_index(op.args["index"]):
        op.prim = "getitem"
        op.attrs["rule"] = rule_named("getitem")


def _basic_index(v: Any) -> bool:
    if not isinstance(v, Value):
        return False
    ok, c = const_value(v)
    if ok:
        return is_basic_index(c) and not isinstance(c, bool)
    if v.op is not None and v.op.prim == "make_tuple":
        return all(_basic_part(p) for p in v.op.args["items"])
    return _basic_part(v)


def _basic_part(v: Value) -> bool:
    ok, c = const_value(v)
    if ok:
        return c is None or c is Ellipsis or isinstance(c, slice) or (
            isinstance(c, (int, np.integer)) and not isinstance(c, bool))
    if v.op is not None and v.op.prim == "make_slice":
        return True
    t = v.type
    return t is not None and (t.kind == "int" or (
        t.kind == "scalar" and t.dtype is not None and np.dtype(t.dtype).kind in "iu"))


def _numpy_one_of_dtype(one: Any, other: Any) -> bool:
    """``np.float32(1.0) * v`` (a float32 result's seed) is ``v`` when ``v`` is known to
    have that very dtype (so neither the dtype nor a value changes)."""
    ok, c = _const(one)
    if not (ok and isinstance(c, np.floating) and c == 1) or not isinstance(other, Value):
        return False
    t = other.type
    return t is not None and t.kind in ("array", "scalar") and t.dtype == c.dtype.name


def _float_one(one: Value, other: Value) -> bool:
    """``1.0 * x`` keeps ``x``'s type unless ``x`` is a Python int."""
    return other.type is None or other.type.kind != "int"


def simplify(fn: Function) -> None:
    mapping: dict[Value, Value] = {}
    _block(fn.body, mapping)
    replace_uses(fn, mapping)


def scalar_factors(fn: Function) -> None:
    """Gather scalar factors before they meet an array: ``s * (c * A)`` with scalars ``s``
    and ``c`` (``c * A`` read nowhere else) is ``(s * c) * A``, one pass over ``A``, not two.

        %5 = multiply(x=2, y=%3)           %5 = multiply(x=%4, y=2)
        %6 = multiply(x=%4, y=%5)   ->     %6 = multiply(x=%5, y=%3)
    """
    _scalar_factors(fn.body, fn.body.use_counts())


def _scalar_factors(block: Block, uses: dict[int, int]) -> None:
    # loop and branch bodies too: a reverse loop's ``(g * 2) * s`` runs once per iteration
    for op in list(block.ops):
        for region in op.regions:
            _scalar_factors(region, uses)
        if op.prim != "multiply" or len(op.outputs) != 1:
            continue
        x, y = op.args.get("x"), op.args.get("y")
        if not (isinstance(x, Value) and isinstance(y, Value)):
            continue
        if not _gathered(op, x, y, block, uses, _scalar):
            # a float32 result's seed: ``np.float32(1.0) / n * (2 * r)`` of a mean square
            _gathered(op, x, y, block, uses, _numpy_scalar)


def _gathered(op: Op, x: Value, y: Value, block: Block, uses: dict[int, int],
              scalar_test: Callable[[Value], bool]) -> bool:
    """Rewrite ``op`` = ``s * (c * A)`` to ``(s * c) * A`` if ``scalar_test`` finds ``s``."""
    scalar, inner = (x, y) if scalar_test(x) else (y, x) if scalar_test(y) else (None, None)
    if scalar is None or inner.op is None or inner.op.prim != "multiply" \
            or uses.get(inner.id) != 1 or _scalar(inner) or inner.op not in block.ops:
        return False
    a, b = inner.op.args["x"], inner.op.args["y"]
    factor, array = (a, b) if _scalar(a) else (b, a) if _scalar(b) else (None, None)
    if factor is None or not _floating(array):
        return False
    if scalar_test is _numpy_scalar and _dtype(scalar) != _dtype(array):
        return False  # (a float32 seed, a float64 array: the product would round in f32)
    # the inner op now multiplies the two scalars; this op applies their product
    inner.op.args = {"x": scalar, "y": factor}
    inner.type = None
    op.args = {"x": inner, "y": array}
    block.ops.remove(inner.op)
    block.ops.insert(block.ops.index(op), inner.op)
    return True


def _numpy_scalar(v: Value) -> bool:
    """A NumPy scalar, or a product or quotient of one and Python numbers (``np.float32(1.0)
    / n``, ``np.float32(1.0) * 0.5``): what a float32 result's seed becomes."""
    t = v.type
    if t is not None and t.kind == "scalar":
        return True
    return v.op is not None and v.op.prim in ("divide", "multiply") and all(
        _scalar(w) or _numpy_scalar(w) or (w.op is not None and w.op.prim == "reduced_count")
        for w in v.op.operands()) and any(_numpy_scalar(w) for w in v.op.operands())


def _dtype(v: Value) -> str | None:
    """The dtype of a NumPy scalar or array value (of a NumPy scalar found in a product)."""
    t = v.type
    if t is not None and t.dtype is not None:
        return t.dtype
    if v.op is not None and v.op.prim in ("divide", "multiply"):
        for w in v.op.operands():
            if _numpy_scalar(w):
                return _dtype(w)
    return None


def _scalar(v: Value) -> bool:
    """A Python number (or a NumPy scalar), not an array."""
    t = v.type
    if t is not None and t.kind in ("float", "int"):
        return True
    return v.op is not None and v.op.prim == "divide" and all(
        _scalar(w) or (w.op is not None and w.op.prim == "reduced_count")
        for w in v.op.operands())


def _block(block: Block, mapping: dict[Value, Value]) -> None:
    """Simplify ``block`` and its regions (a replacement always dominates what it replaces)."""
    for op in block.ops:
        for region in op.regions:
            _block(region, mapping)
        if len(op.outputs) != 1:
            continue
        op.args = {k: _remap(x, mapping) for k, x in op.args.items()}
        _plain_read(op)
        new = _simplify(op)
        if new is not None and new is not op.out:
            if new.name is None and op.out.name is not None and new.op is not None:
                new.name = op.out.name
            if new.adjoint_of is None and op.out.adjoint_of is not None and new.name is None:
                new.adjoint_of = op.out.adjoint_of
            mapping[op.out] = new


def _remap(a: Any, mapping: dict[Value, Value]) -> Any:
    if isinstance(a, tuple):
        return tuple(_remap(x, mapping) for x in a)
    return mapping.get(a, a) if isinstance(a, Value) else a
