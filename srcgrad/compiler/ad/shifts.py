"""Shifts that cancel: a row maximum subtracted for stability has a derivative of exactly 0.

Softmax, log-softmax and log-sum-exp code subtracts the maximum along an axis before
exponentiating (``z = z - np.max(z, axis=1, keepdims=True)``). What follows is often
invariant under ``z -> z + d`` for any ``d`` constant along that axis
(``z - np.log(np.sum(np.exp(z), 1, keepdims=True))``, ``e / np.sum(e, 1, keepdims=True)``),
so the result does not depend on the subtracted value at all: its derivative is exactly 0
in real arithmetic, and the adjoint through the maximum (a comparison, a NaN check, a
selection and a subtraction per call, adding only rounding error) can be left out. The
person writing a softmax gradient by hand drops it for the same reason.

This module proves that, before activity analysis (:mod:`.activity`), which then treats
such a maximum as a constant: no tangent or adjoint flows through it in any mode, and
since a function invariant under the shift has derivatives of every order invariant too,
second derivatives stay exact. It is sound by construction: every value that depends on
the shift ``c`` gets a class saying how it depends on it, and any use it cannot classify
stops the proof:

- ``ADD k``: the value is ``v + k * c`` (``c`` broadcast along the axis);
- ``MUL k``: the value is ``v * exp(k * c)``;
- ``k == 0``: the value does not depend on ``c`` (it may flow anywhere).

``c`` must be a ``keepdims`` max/min along one constant axis, so it is constant along that
axis and has the rank of what it shifts; every value in a class must keep that rank (so
broadcasting never misaligns the axes), reductions must be along the same axis with
``keepdims``, and no value that still depends on ``c`` may be a result, reach a region
(loop or branch body) or any other operation. Only the function's top-level block is read.
"""

from __future__ import annotations

from srcgrad.rules import Rule

from ..ir.core import Function, Op, Value, const_value

ADD, MUL = "add", "mul"
Class = tuple[str, int]  # (ADD or MUL, k); k == 0 means independent of the shift

_SHIFTS = ("max", "min")  # reductions whose keepdims result is a candidate shift


def _rule(op: Op) -> Rule | None:
    return op.attrs.get("rule")


def _const_arg(op: Op, name: str) -> tuple[bool, object]:
    v = op.args.get(name)
    if not isinstance(v, Value):
        return False, None
    return const_value(v)


def _one_axis(op: Op, ndim: int) -> int | None:
    """The axis of a ``keepdims=True`` reduction of a ``ndim``-d array along one axis."""
    known, keepdims = _const_arg(op, "keepdims")
    if not known or keepdims is not True:
        return None
    known, axis = _const_arg(op, "axis")
    if known and isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if not known or type(axis) is not int or not -ndim <= axis < ndim:
        return None
    return axis % ndim


def _ndim(v: Value) -> int | None:
    return v.type.known_ndim if v.type is not None else None


def cancelled_shifts(fn: Function) -> set[int]:
    """Ids of the top-level max/min results that no result of ``fn`` depends on."""
    ops = fn.body.ops
    # values read inside a region (a loop or branch body): never classified
    in_regions: set[int] = set()
    for op in ops:
        for region in op.regions:
            for inner in region.walk():
                in_regions.update(v.id for v in inner.operands())
            in_regions.update(v.id for v in region.results if isinstance(v, Value))
    found: set[int] = set()
    for at, op in enumerate(ops):
        if op.prim not in _SHIFTS or _rule(op) is None or len(op.outputs) != 1:
            continue
        ndim = _ndim(op.out)
        if not ndim:
            continue
        axis = _one_axis(op, ndim)
        if axis is not None and _cancels(fn, at, axis, ndim, in_regions):
            found.add(op.out.id)
    return found


def _cancels(fn: Function, at: int, axis: int, ndim: int, in_regions: set[int]) -> bool:
    """Does nothing ``fn`` returns depend on the shift ``fn.body.ops[at]`` computes?"""
    ops = fn.body.ops
    classes: dict[int, Class] = {ops[at].out.id: (ADD, 1)}
    for op in ops[at + 1:]:
        read = [v for v in op.operands() if v.id in classes]
        if not read:
            continue
        if op.regions or len(op.outputs) != 1:
            return False
        got = _through(op, classes, axis, ndim)
        if got is None:
            return False
        if got[1]:
            classes[op.out.id] = got
    if any(v in in_regions for v in classes):
        return False
    return not any(isinstance(r, Value) and r.id in classes for r in fn.body.results)


def _class(v: Value, classes: dict[int, Class]) -> Class:
    return classes.get(v.id, (ADD, 0))


def _through(op: Op, classes: dict[int, Class], axis: int, ndim: int) -> Class | None:
    """The class of ``op``'s result from its operands' classes; None if it has none."""
    if _ndim(op.out) != ndim:
        return None  # (another rank could broadcast the shift along another axis)
    rule = _rule(op)
    name = rule.name if rule is not None else None
    args = op.args
    if name in ("add", "subtract", "multiply", "divide"):
        x, y = args.get("x"), args.get("y")
        if not isinstance(x, Value) or not isinstance(y, Value):
            return None
        (kx_kind, kx), (ky_kind, ky) = _class(x, classes), _class(y, classes)
        if name in ("add", "subtract"):
            # v1 + k1 c  +-  v2 + k2 c; a MUL class added to anything has no class
            if (kx and kx_kind != ADD) or (ky and ky_kind != ADD):
                return None
            return ADD, kx + ky if name == "add" else kx - ky
        # v1 e^(k1 c) * or / v2 e^(k2 c); an ADD class scaled has no class
        if (kx and kx_kind != MUL) or (ky and ky_kind != MUL):
            return None
        return MUL, kx + ky if name == "multiply" else kx - ky
    x = args.get("x")
    if not isinstance(x, Value) or any(v is not x for v in op.operands()
                                       if v.id in classes):
        return None
    kind, k = _class(x, classes)
    if name == "negative":
        return (ADD, -k) if kind == ADD else (MUL, k)
    if name == "exp" and kind == ADD:
        return MUL, k
    if name == "log" and kind == MUL:
        return ADD, k
    if name in ("sum", "mean", "max", "min") and _one_axis(op, ndim) == axis:
        # constant along the axis: a sum keeps a factor, a mean/max/min keeps a shift too
        if kind == MUL or name != "sum":
            return kind, k
    return None
