"""A full reduction's cotangent stays a number through ``unbroadcast`` and partners whose
shape is only known to fit inside the reduced array's.

Part of the shapes pass (``shapes.py`` calls :func:`spread_lazily` after its own
``_lazy_unreduce``). That fold turns ``unreduce(g, shape(v))`` (``np.sum``/``np.mean``'s
adjoint, ``g`` one number broadcast to ``v``'s shape) into ``g`` when every use meets a
partner *provably of* ``v``'s shape. Where the shapes of two arguments meet
(``(1 - y) * z``: ``y`` and ``z`` are both ``(n,)`` at run time, but nothing says so when
compiling, least of all in the generic version a Dask or CuPy array takes, whose types are
unknown) it gave up, and the adjoint materialised the broadcast: on Dask one 40 MB chunk
built on one worker and re-chunked across the cluster.

Here the facts used are the ones every broadcast guarantees: an operand of an elementwise
op broadcasts into its result (``w`` fits inside ``w * z``). A number ``g`` standing for
``broadcast_to(g, P)``

- through an elementwise op with number partners stays a number standing for ``P``;
- with a partner of ``P``'s shape class gives the full result (as before);
- with a partner that fits inside ``P`` gives ``rebroadcast(f(g, w), P)``: the right shape,
  and no work when ``w`` has all of ``P`` (the usual case);
- through ``unbroadcast(., Q)`` with ``Q`` fitting inside ``P`` is summed ``copies(P, Q)``
  times: ``g * copies(P, Q)`` standing for ``Q`` (the count is 1 when nothing was
  broadcast);
- through ``unreduce(., S, axis)`` (the adjoint of a reduction over an axis, whose
  cotangent has the reduced shape ``P``) stays the number, standing for ``S``.

Anything else (a result, a loop or branch reading it, another primitive) leaves that
``unreduce`` as it is. So no shape fact is assumed that the program does not establish, and
the emitted code stays NumPy calls that dispatch to a Dask or CuPy array.

    %8 = unreduce(x=%6, shape=%7)        %13 = copies(shape=%7, target=%12)
    %10 = unbroadcast(x=%8, shape=%12)   %10 = multiply(x=%6, y=%13)
    %11 = multiply(x=%10, y=%9)    ->    %11 = multiply(x=%10, y=%9)
                                         %14 = rebroadcast(x=%11, shape=%12)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...rules.registry import RULES
from ..ir.core import Function, Op, Value, const_value
from ..ir.types import FLOAT, INT
from .blocks import read_inside
from .rewrite import replace_uses
from .shape_classes import Classes, elementwise, float64_array, rank0

_MAX_WALK = 64  # how far ``fits`` follows elementwise results looking for a shape class


@dataclass(frozen=True)
class _Stands:
    """A number standing for its broadcast to ``source``'s shape (``shape`` = that shape)."""

    source: Value
    shape: Value


def spread_lazily(fn: Function, classes: Classes, scalar: set[int]) -> None:
    """Fold each full reduction's ``unreduce`` left by the shapes pass where the rules
    above allow; ``scalar`` holds values earlier folds made numbers (updated here)."""
    unreduces = [op for op in fn.body.ops if op.prim == "unreduce" and _full_reduction(op)]
    if not unreduces:
        return
    # read once: ops a fold inserts only add facts (missing them is merely conservative)
    seen = {r.id for r in fn.body.results}  # what a result or a loop/branch body reads
    readers: dict[int, list[Op]] = {}  # value id -> elementwise ops reading it
    for op in fn.body.ops:
        for region in op.regions:
            seen |= read_inside(region)
        if elementwise(op):
            for w in op.operands():
                readers.setdefault(w.id, []).append(op)
    for op in unreduces:
        source = classes.shape_source(op.args.get("shape"))
        if source is not None and isinstance(op.args.get("x"), Value):
            _fold(fn, op, _Stands(source, op.args["shape"]), classes, scalar, seen, readers)


def _full_reduction(op: Op) -> bool:
    """``unreduce`` of ``np.sum(v)``/``np.mean(v)`` without axis: its ``x`` is one number."""
    for name, default in (("axis", None), ("keepdims", False)):
        a = op.args.get(name)
        if a is not None and const_value(a) != (True, default):
            return False
    return True


def _fold(fn: Function, u: Op, stands: _Stands, classes: Classes, scalar: set[int],
          seen: set[int], readers: dict[int, list[Op]]) -> None:
    ops = fn.body.ops
    g = u.args["x"]
    # A Python float is weak (NEP 50): with a float32 partner the result would be float32
    # where the broadcast float64 array made float64, so its partners must be float64. In
    # the generic version types are unknown and a cotangent is taken as an array's (it is
    # ``seed_one``'s); the gradient is cast to its argument's dtype at the end either way.
    weak = g.type == FLOAT or classes.is_weak(g)
    lazy: dict[int, _Stands] = {u.out.id: stands}
    plan: list[tuple[str, Op, _Stands]] = []
    for op in ops[ops.index(u) + 1:]:
        mine = [v for v in op.operands() if v.id in lazy]
        if not mine:
            continue
        if op.regions:
            return
        first = lazy[mine[0].id]
        if not all(classes.same(lazy[v.id].source, first.source) for v in mine):
            return
        if op.prim == "unbroadcast" and op.args.get("x") in mine and len(mine) == 1:
            target = classes.shape_source(op.args.get("shape"))
            if target is None:
                return
            if classes.same(target, first.source):
                plan.append(("alias", op, first))
                lazy[op.out.id] = first
            elif _fits(target, first.source, classes, readers):
                plan.append(("scale", op, first))
                lazy[op.out.id] = _Stands(target, op.args["shape"])
            else:
                return
            continue
        if op.prim == "unreduce" and op.args.get("x") in mine and len(mine) == 1:
            # a reduction's adjoint over an axis (``np.sum(z * y, axis=1)`` under a mean):
            # a number standing for the reduced shape spreads back to the whole one
            target = classes.shape_source(op.args.get("shape"))
            if target is None:
                return
            plan.append(("alias", op, first))
            lazy[op.out.id] = _Stands(target, op.args["shape"])
            continue
        if not elementwise(op):
            return
        shaped = [v for v in op.operands()
                  if v.id not in lazy and not rank0(v) and v.id not in scalar]
        if not shaped:
            lazy[op.out.id] = first
            continue
        if weak and not all(float64_array(v, classes) for v in shaped):
            return
        if all(classes.same(v, first.source) for v in shaped):
            continue  # the partner gives the result its full shape
        if all(classes.same(v, first.source) or _fits(v, first.source, classes, readers)
               for v in shaped):
            plan.append(("spread", op, first))
            continue
        return
    if any(i in seen for i in lazy):
        return
    _apply(fn, u, plan)
    scalar |= set(lazy)


def _fits(v: Value, source: Value, classes: Classes, readers: dict[int, list[Op]]) -> bool:
    """Does ``v`` broadcast into ``source``'s shape? True when an elementwise op (of the
    top-level block) reads ``v`` and its result, or one of those further on, is of
    ``source``'s shape class: an operand always broadcasts into its op's result."""
    todo, seen = [v], {v.id}
    while todo and len(seen) < _MAX_WALK:
        w = todo.pop()
        if classes.same(w, source):
            return True
        for op in readers.get(w.id, []):
            if op.out.id not in seen:
                seen.add(op.out.id)
                todo.append(op.out)
    return False


def _apply(fn: Function, u: Op, plan: list[tuple[str, Op, _Stands]]) -> None:
    mapping: dict[Value, Value] = {u.out: u.args["x"]}
    spreads: list[Op] = []
    for kind, op, stands in plan:
        if kind == "alias":
            mapping[op.out] = op.args["x"]
        elif kind == "scale":
            count = Op("copies", {"shape": stands.shape, "target": op.args["shape"]},
                       [Value(type=INT)], {"rule": RULES["copies"]}, line=op.line)
            fn.body.ops.insert(fn.body.ops.index(op), count)
            op.prim, op.attrs = "multiply", {**op.attrs, "rule": RULES["multiply"]}
            op.args = {"x": op.args["x"], "y": count.out}
        else:
            full = Op("rebroadcast", {"x": op.out, "shape": stands.shape},
                      [Value(type=op.out.type)], {"rule": RULES["rebroadcast"]}, line=op.line)
            fn.body.ops.insert(fn.body.ops.index(op) + 1, full)
            mapping[op.out] = full.out
            spreads.append(full)
    replace_uses(fn, mapping)
    for full in spreads:  # replace_uses pointed it at itself: it reads the op it follows
        full.args["x"] = next(v for v, w in mapping.items() if w is full.out)

