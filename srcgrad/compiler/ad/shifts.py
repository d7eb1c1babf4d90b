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

``c`` must be a max/min along one constant axis of an array of known rank ``n``. Each
class also names its frame: *kept* (rank ``n``, ``c`` broadcast along the axis, as a
``keepdims`` result is) or *reduced* (rank ``n - 1``, the axis gone, as ``c`` is without
``keepdims``). Every value in a class must have its frame's rank (so broadcasting never
misaligns the axes); a reduction along the axis goes from kept to reduced (or stays kept
with ``keepdims``), ``m[:, None]`` (an index that only inserts the axis) from reduced to
kept. No value that still depends on ``c`` may be a result, reach a region (loop or
branch body) or any other operation.

Every block is read, loop and branch bodies too: within a body the proof is the same, the
body's results (a loop's carried and collected values, a branch's outputs) standing for
the function's. A softmax computed per iteration of a loop over sequences then drops its
maximum's adjoint as the batched one does (in the reverse loop that adjoint was a
comparison, a selection and a subtraction per iteration, on full-size arrays).
"""

from __future__ import annotations

from srcgrad.rules import Rule

from ..ir.core import Block, Function, Op, Value, const_value

ADD, MUL = "add", "mul"
KEPT, REDUCED = "kept", "reduced"
# (ADD or MUL, k, frame); k == 0 means independent of the shift
Class = tuple[str, int, str]

_SHIFTS = ("max", "min")  # reductions whose result is a candidate shift
_REDUCTIONS = ("sum", "mean", "max", "min")


def _rule(op: Op) -> Rule | None:
    return op.attrs.get("rule")


def _const_arg(op: Op, name: str) -> tuple[bool, object]:
    v = op.args.get(name)
    if not isinstance(v, Value):
        return False, None
    return const_value(v)


def _reduced_along(op: Op, ndim: int) -> tuple[int, bool] | None:
    """``(axis, keepdims)`` of a reduction of an ``ndim``-d array along one constant axis."""
    known, keepdims = _const_arg(op, "keepdims")
    if not known or type(keepdims) is not bool:
        return None
    known, axis = _const_arg(op, "axis")
    if known and isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if not known or type(axis) is not int or not -ndim <= axis < ndim:
        return None
    return axis % ndim, keepdims


def _ndim(v: object) -> int | None:
    if not isinstance(v, Value) or v.type is None:
        return None
    return v.type.known_ndim


def _inserting(axis: int, ndim: int) -> tuple[object, ...]:
    """The index that inserts ``axis`` into an array of rank ``ndim - 1`` (``[:, None]``)."""
    index = tuple(None if i == axis else slice(None) for i in range(ndim))
    while index and index[-1] == slice(None):
        index = index[:-1]
    return index


def cancelled_shifts(fn: Function) -> set[int]:
    """Ids of the max/min results (in any block) that no result of their block, hence of
    ``fn``, depends on."""
    found: set[int] = set()
    _block_shifts(fn.body, found)
    return found


def _block_shifts(block: Block, found: set[int]) -> None:
    ops = block.ops
    # values read inside a region (a loop or branch body): never classified
    in_regions: set[int] = set()
    for op in ops:
        for region in op.regions:
            _block_shifts(region, found)
            for inner in region.walk():
                in_regions.update(v.id for v in inner.operands())
            in_regions.update(v.id for v in region.results if isinstance(v, Value))
    for at, op in enumerate(ops):
        if op.prim not in _SHIFTS or _rule(op) is None or len(op.outputs) != 1:
            continue
        ndim = _ndim(op.args.get("x"))
        along = _reduced_along(op, ndim) if ndim else None
        if along is None or _ndim(op.out) != ndim - (0 if along[1] else 1):
            continue
        start: Class = (ADD, 1, KEPT if along[1] else REDUCED)
        if _cancels(block, at, start, along[0], ndim, in_regions):
            found.add(op.out.id)


def _cancels(block: Block, at: int, start: Class, axis: int, ndim: int,
             in_regions: set[int]) -> bool:
    """Does nothing ``block`` yields depend on the shift ``block.ops[at]`` computes?"""
    ops = block.ops
    classes: dict[int, Class] = {ops[at].out.id: start}
    for op in ops[at + 1:]:
        if not any(v.id in classes for v in op.operands()):
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
    return not any(isinstance(r, Value) and r.id in classes for r in block.results)


def _through(op: Op, classes: dict[int, Class], axis: int, ndim: int) -> Class | None:
    """The class of ``op``'s result from its operands' classes; None if it has none."""
    frames = {classes[v.id][2] for v in op.operands() if v.id in classes}
    if len(frames) != 1:
        return None  # (a kept and a reduced value would broadcast along different axes)
    (frame,) = frames
    rank = ndim if frame == KEPT else ndim - 1
    rule = _rule(op)
    name = rule.name if rule is not None else None
    args = op.args
    if name in ("add", "subtract", "multiply", "divide"):
        x, y = args.get("x"), args.get("y")
        if not isinstance(x, Value) or not isinstance(y, Value) or _ndim(op.out) != rank:
            return None
        (x_kind, kx, _), (y_kind, ky, _) = (classes.get(v.id, (ADD, 0, frame)) for v in (x, y))
        if name in ("add", "subtract"):
            # v1 + k1 c  +-  v2 + k2 c; a MUL class added to anything has no class
            if (kx and x_kind != ADD) or (ky and y_kind != ADD):
                return None
            return ADD, kx + ky if name == "add" else kx - ky, frame
        # v1 e^(k1 c) * or / v2 e^(k2 c); an ADD class scaled has no class
        if (kx and x_kind != MUL) or (ky and y_kind != MUL):
            return None
        return MUL, kx + ky if name == "multiply" else kx - ky, frame
    x = args.get("x")
    if not isinstance(x, Value) or any(v is not x for v in op.operands() if v.id in classes):
        return None
    kind, k, _ = classes[x.id]
    if name in ("negative", "exp", "log") and _ndim(op.out) == rank:
        if name == "negative":
            return (ADD, -k, frame) if kind == ADD else (MUL, k, frame)
        if name == "exp" and kind == ADD:
            return MUL, k, frame
        if name == "log" and kind == MUL:
            return ADD, k, frame
        return None
    if name in _REDUCTIONS and frame == KEPT:
        along = _reduced_along(op, ndim)
        if along is None or along[0] != axis or _ndim(op.out) != ndim - (0 if along[1] else 1):
            return None
        # constant along the axis: a sum keeps a factor, a mean/max/min keeps a shift too
        if kind == MUL or name != "sum":
            return kind, k, KEPT if along[1] else REDUCED
        return None
    if name == "getitem" and frame == REDUCED and _ndim(op.out) == ndim:
        known, index = _const_arg(op, "index")
        if known and isinstance(index, tuple) and index == _inserting(axis, ndim):
            return kind, k, KEPT
    return None
