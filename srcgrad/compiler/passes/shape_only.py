"""Shapes without values: a value the derivative code reads only for its shape is not
computed; its shape is computed from its operands' shapes instead.

Runs once, after the pipeline's two rounds (the shape classes of ``shapes.py`` have then
been used: they read ``shape(x=v)`` ops to find ``v``). ``sg.grad`` returns no primal
value, so a loss's own last operations (the log of a log-sum-exp, ``z * y`` and its sum,
their difference, squares summed by a mean) survive dead-code elimination only because
the adjoints of the reductions and broadcasts after them ask for their shapes. For an
elementwise op the shape is the broadcast of its operands' shapes; for a reduction along
constant axes it is the operand's shape less the axes::

    %13 = multiply(x=%z1, y=%y)                  %20 = shape(x=%z1)      # (or its class's)
    %14 = shape(x=%13)                           %21 = shape(x=%y)
    %15 = sum(x=%13, axis=1)             ->      %14 = broadcast_shape(a=%20, b=%21)
    %16 = shape(x=%15)                           %16 = reduced_shape(shape=%14, axis=1)
    ... %13, %15 read by nothing else            (%13, %15 dead: dropped by dce)

Only top-level values of known rank are rewritten, only when every other reader of the
value is itself dead or a ``shape`` op, so a value computed anyway never pays a second
computation of its shape. A shape from a class representative (``shapes.py``) is reused,
and each shape op is emitted once (one already there, or one an earlier rewrite emitted, is
read again), so only dead-code elimination runs after the rewrite.
"""

from __future__ import annotations

from typing import Any

from ...rules.registry import RULES
from ..ir.core import Function, Op, Value, const_value
from ..ir.types import STATIC
from .blocks import read_inside
from .dce import dce
from .rewrite import removable, replace_uses
from .shape_classes import elementwise as _elementwise
from .shape_classes import plain_classes as _plain_classes
from .shape_classes import rank0 as _rank0

# reductions whose result has the operand's shape less ``axis`` (or with it as 1)
_AXIS_REDUCTIONS = ("sum", "mean", "max", "min", "prod", "var", "std", "nansum", "nanmean")


def shapes_without_values(fn: Function) -> None:
    ops = fn.body.ops
    live = _value_live(fn)
    classes = _plain_classes(fn)
    defined = {p.id for p in fn.params}
    position: dict[int, int] = {}
    for k, op in enumerate(ops):
        for o in op.outputs:
            position[o.id] = k
    rewritten: dict[Value, Value] = {}
    new_ops: list[Op] = []
    made: dict[tuple[Any, ...], Value] = {}  # the shapes defined so far, by what they read
    for op in ops:
        if op.prim == "shape" and isinstance(op.args.get("x"), Value) \
                and _computable(op.args["x"], live, position):
            builder = _Builder(classes, live, position, defined, new_ops, op.line, made)
            rewritten[op.out] = builder.shape_of(op.args["x"])
        elif op.prim == "shape" and isinstance(op.args.get("x"), Value):
            made.setdefault(("shape", op.args["x"].id), op.out)
        new_ops.append(op)
        defined.update(o.id for o in op.outputs)
    if not rewritten:
        return
    fn.body.ops = new_ops
    replace_uses(fn, rewritten)
    dce(fn)


def _computable(v: Value, live: set[int], position: dict[int, int]) -> bool:
    """``v``'s shape can be had from its operands' (and its value is not needed)."""
    op = v.op
    if op is None or v.id in live or v.id not in position or len(op.outputs) != 1:
        return False
    if v.type is None or v.type.known_ndim is None or v.type.known_ndim == 0:
        return False
    return _elementwise(op) or _reduction_axes(op) is not None


def _reduction_axes(op: Op) -> tuple[Any, bool] | None:
    if op.prim not in _AXIS_REDUCTIONS or not isinstance(op.args.get("x"), Value):
        return None
    axis, keep = op.args.get("axis"), op.args.get("keepdims")
    is_axis, a = const_value(axis) if isinstance(axis, Value) else (axis is None, axis)
    is_keep, k = const_value(keep) if isinstance(keep, Value) else (keep is None, False)
    if not (is_axis and is_keep) or not isinstance(k, bool):
        return None
    if set(op.args) - {"x", "axis", "keepdims", "ddof"}:
        return None
    return a, k


class _Builder:
    """Emits, before the op being rewritten, the ops that compute a value's shape."""

    def __init__(self, classes: Any, live: set[int], position: dict[int, int],
                 defined: set[int], out: list[Op], line: int | None,
                 made: dict[tuple[Any, ...], Value]) -> None:
        self.classes, self.live, self.position = classes, live, position
        self.defined, self.out, self.line = defined, out, line
        # an op asked for twice (two shapes read from one leaf's) is emitted once
        self.made = made

    def shape_of(self, v: Value) -> Value:
        if _computable(v, self.live, self.position):
            op = v.op
            assert op is not None
            axes = _reduction_axes(op)
            if axes is not None:
                return self._emit("reduced_shape", {"shape": self.shape_of(op.args["x"]),
                                                    "axis": self._const(axes[0]),
                                                    "keepdims": self._const(axes[1])})
            # (the answers of the walk that made the classes: the ops read are unchanged)
            shaped = [w for w in op.operands() if not _rank0(w, self.classes.numbers)]
            if shaped:
                result = self.shape_of(shaped[0])
                for w in shaped[1:]:
                    if not self.classes.same(w, shaped[0]):
                        result = self._emit("broadcast_shape",
                                            {"a": result, "b": self.shape_of(w)})
                return result
        rep = self.classes.of(v)
        source = rep if rep.id in self.defined and rep.type is not None \
            and rep.type.known_ndim is not None else v
        return self._emit("shape", {"x": source})

    def _const(self, value: Any) -> Value:
        key = ("const", type(value), value)  # (axes and keepdims: ints, tuples, bools)
        try:
            return self.made[key]
        except KeyError:
            pass
        except TypeError:  # (unhashable: not shared)
            key = ("const", id(value))
        op = Op("const", {}, [Value(type=STATIC)], {"value": value}, line=self.line)
        self.out.append(op)
        self.made[key] = op.out
        return op.out

    def _emit(self, prim: str, args: dict[str, Value]) -> Value:
        key = (prim, *(v.id for v in args.values()))
        if key not in self.made:
            op = Op(prim, args, [Value(type=STATIC)], {"rule": RULES[prim]}, line=self.line)
            self.out.append(op)
            self.made[key] = op.out
        return self.made[key]


def _value_live(fn: Function) -> set[int]:
    """Values whose value (not only shape) something needs: results, region reads, and the
    operands of every op that is not a pure op whose outputs are all unneeded."""
    live = {r.id for r in fn.body.results}
    for op in fn.body.ops:
        for region in op.regions:
            live |= read_inside(region)
    for op in reversed(fn.body.ops):
        if op.prim == "shape":
            continue  # reads only the shape
        if removable(op) and not any(o.id in live for o in op.outputs):
            continue
        live.update(v.id for v in op.operands())
    return live
