"""Element adjoints: the adjoints of element reads ``y[0]``, ``y[1]`` of one array, summed,
become one array written element by element, not one zeros array per read.

Runs on the code to emit only (``pipeline.for_emission``), after the other passes, which
then run once more. Reverse mode gives each read ``y[c]`` the adjoint
``scatter_add(g, shape(y), c)`` (zeros of ``y``'s shape with ``g`` added at ``c``) and sums
the adjoints of every read: ``k`` reads cost ``k`` zeros arrays, ``k - 1`` array additions
and ``k`` helper calls, per loop iteration in an ODE step or a scalar loop. In each block
(loop and branch bodies too), a sum tree of ``add`` ops whose leaves are such scatters
into one shape, each read by nothing but the tree, is rebuilt as one array: the
scatters' values summed per index (numbers, cheap), written into one ``zeros`` (the
backend writes each ``setitem`` in place: the zeros array is fresh and read by no one
else), then added to the tree's other leaves:

    %a = scatter_add(x=%g1, shape=%s, index=1)       %z = zeros(shape=%s)
    %b = scatter_add(x=%g2, shape=%s, index=0)       %u = add(x=%g1, y=%g3)
    %t = add(x=%a, y=%b)                      ->     %z1 = setitem(x=%z, values=%u, index=1)
    %c = scatter_add(x=%g3, shape=%s, index=1)       %z2 = setitem(x=%z1, values=%g2, index=0)
    %d = add(x=%t, y=%c)                             %d = add(x=%dy, y=%z2)
    %e = add(x=%dy, y=%d)

    (emitted: _t1 = np.zeros(_t0); _t1[1] = g1 + g3; _t1[0] = g2; dy_1 = dy + _t1)

Only where it is the same array: the indices into one shape are non-negative ints (or
tuples of them, all of one length), so distinct indices name distinct positions and one
``setitem`` per index writes what the scatters added; ``shape`` is the shape of a float64
array (so ``np.zeros`` has the dtype the sum has, the scatters' values being that array's
adjoint). A lone scatter outside loops stays one ``scatter_add`` call (it runs once, and
reads shorter); in a loop body it is written the same way (a helper call costs ten times
a write).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value, const_value
from ..ir.types import NONE, AType
from .blocks import popped_items

_NUMBERS = (int, np.integer)
_LOOPS = ("for_range", "while")


def has_element_scatters(fn: Function) -> bool:
    """Whether :func:`element_adjoints` has anything to rewrite (a cheap look first)."""
    if not any(op.prim == "scatter_add" for op in fn.body.walk()):
        return False
    popped = popped_items(fn)
    return any(_element_scatter(op, popped) for op in fn.body.walk())


def element_adjoints(fn: Function) -> None:
    uses = fn.body.use_counts()
    popped = popped_items(fn)
    for block, in_loop in _blocks(fn.body, False):
        _rebuild(block, uses, popped, in_loop)


def _blocks(block: Block, in_loop: bool) -> list[tuple[Block, bool]]:
    out = [(block, in_loop)]
    for op in block.ops:
        for region in op.regions:
            out += _blocks(region, in_loop or op.prim in _LOOPS)
    return out


def _index_key(index: Any) -> tuple[int, ...] | None:
    """The index as a tuple of non-negative ints, or None when it is anything else."""
    is_const, c = const_value(index) if isinstance(index, Value) else (False, None)
    if not is_const:
        return None
    parts = c if isinstance(c, tuple) else (c,)
    if not parts or not all(isinstance(p, _NUMBERS) and not isinstance(p, bool) and p >= 0
                            for p in parts):
        return None
    return tuple(int(p) for p in parts)


def _float64_shape(s: Any, popped: dict[int, Value]) -> AType | None:
    """The type of ``v`` when ``s`` is ``shape(x=v)`` (possibly saved on a tape) of a
    float64 array ``v`` of known rank; else None."""
    if isinstance(s, Value) and s.id in popped:
        s = popped[s.id]
    if not (isinstance(s, Value) and s.op is not None and s.op.prim == "shape"):
        return None
    t = s.op.args["x"].type if isinstance(s.op.args.get("x"), Value) else None
    if t is not None and t.kind == "array" and t.dtype == "float64" and t.ndim:
        return t
    return None


def _element_scatter(op: Op | None, popped: dict[int, Value]) -> bool:
    return (op is not None and op.prim == "scatter_add" and set(op.args) == {
        "x", "shape", "index"} and _index_key(op.args["index"]) is not None
        and _float64_shape(op.args["shape"], popped) is not None)


def _rebuild(block: Block, uses: dict[int, int], popped: dict[int, Value],
             in_loop: bool) -> None:
    here = {o.id: op for op in block.ops for o in op.outputs}
    # a value absorbed into the sum tree of the add that reads it (it has no other reader)
    absorbed: set[int] = set()
    for op in block.ops:
        if op.prim == "add" and set(op.args) == {"x", "y"}:
            for v in (op.args["x"], op.args["y"]):
                if isinstance(v, Value) and uses.get(v.id) == 1 and v.id in here and (
                        here[v.id].prim == "add" or _element_scatter(here[v.id], popped)):
                    absorbed.add(v.id)
    ops: list[Op] = []
    for op in block.ops:
        if len(op.outputs) == 1 and op.out.id not in absorbed and (
                op.prim == "add" and set(op.args) == {"x", "y"}
                or _element_scatter(op, popped)):
            scatters, others = _leaves(op.out, here, absorbed, popped)
            # one scatter outside loops stays one readable helper call (it runs once)
            if len(scatters) > 1 or scatters and in_loop:
                ops += _assembled(op, scatters, others, popped)
                continue
        ops.append(op)
    block.ops = ops


def _leaves(root: Value, here: dict[int, Op], absorbed: set[int],
            popped: dict[int, Value]) -> tuple[list[Op], list[Value]]:
    """The tree's element scatters and its other leaves, left to right."""
    scatters: list[Op] = []
    others: list[Value] = []

    def visit(v: Value, top: bool) -> None:
        op = here.get(v.id)
        if op is not None and (top or v.id in absorbed):
            if op.prim == "add" and set(op.args) == {"x", "y"}:
                for w in (op.args["x"], op.args["y"]):
                    if isinstance(w, Value):
                        visit(w, False)
                    else:
                        others.append(w)
                return
            if _element_scatter(op, popped):
                scatters.append(op)
                return
        others.append(v)

    visit(root, True)
    return scatters, others


def _assembled(root: Op, scatters: list[Op], others: list[Value],
               popped: dict[int, Value]) -> list[Op]:
    """The ops computing ``root``'s value: one zeros array per shape, written per index,
    added to the other leaves (``root``'s output Value kept, so its readers stay)."""
    line = root.line
    new: list[Op] = []
    groups: dict[int, list[Op]] = {}
    for s in scatters:
        groups.setdefault(s.args["shape"].id, []).append(s)
    arrays: list[Value] = []
    others = list(others)
    for members in groups.values():
        if len({len(_index_key(s.args["index"]) or ()) for s in members}) > 1:
            # y[0] and y[0, 1] overlap: those stay scatters, added as they were
            others += [s.out for s in members]
            continue
        shape = members[0].args["shape"]
        kind = _float64_shape(shape, popped)
        z = Op("zeros", {"shape": shape, "dtype": _none(new, line)}, [Value(type=kind)],
               {"rule": RULES["zeros"]}, line=line)
        new.append(z)
        array = z.out
        by_index: dict[tuple[int, ...], list[Op]] = {}
        for s in members:
            by_index.setdefault(_index_key(s.args["index"]), []).append(s)
        for same in by_index.values():
            total = same[0].args["x"]
            for s in same[1:]:
                add = Op("add", {"x": total, "y": s.args["x"]}, [Value()],
                         {"rule": RULES["add"]}, line=line)
                new.append(add)
                total = add.out
            put = Op("setitem", {"x": array, "values": total, "index": same[0].args["index"]},
                     [Value(type=kind)], {"rule": RULES["setitem"]}, line=line)
            new.append(put)
            array = put.out
        arrays.append(array)
    terms = [*others, *arrays]
    if not arrays:
        return [*new, root]
    total = terms[0]
    for k, term in enumerate(terms[1:], start=1):
        last = k == len(terms) - 1
        add = Op("add", {"x": total, "y": term}, [root.out] if last else [Value()],
                 {"rule": RULES["add"]}, line=line)
        new.append(add)
        total = add.out
    if total is not root.out:  # one shape's scatters alone: the last setitem is the value
        last_op = new[-1]
        last_op.outputs = [root.out]
        root.out.op = last_op
    return new


def _none(new: list[Op], line: int | None) -> Value:
    const = Op("const", {}, [Value(type=NONE)], {"value": None}, line=line)
    new.append(const)
    return const.out
