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
    for block, in_loop, accumulators in _blocks(fn.body, False, None):
        _rebuild(block, uses, popped, in_loop, accumulators)


def _blocks(block: Block, in_loop: bool, accumulators: dict[int, tuple[Value, int]] | None
            ) -> list[tuple[Block, bool, dict[int, tuple[Value, int]]]]:
    out = [(block, in_loop, accumulators or {})]
    for op in block.ops:
        for region in op.regions:
            body = op.prim in _LOOPS and region is op.regions[-1]
            out += _blocks(region, in_loop or op.prim in _LOOPS,
                           _carried_zeros(op, region) if body else None)
    return out


def _carried_zeros(loop: Op, body: Block) -> dict[int, tuple[Value, int]]:
    """The body's carried values that start as ``zeros_of(x)`` of a float64 array ``x``:
    param id -> (``x``, its slot: the index of its next value in the body's results).
    Each iteration's next value is ``param + zeros(shape(x))`` written per element (what
    :func:`_assembled` makes), so by induction it keeps ``x``'s shape and float64 dtype
    when :func:`_accumulator` checks that the body's result in that slot is such a sum."""
    carried = body.params[1:] if loop.prim == "for_range" else body.params
    out: dict[int, tuple[Value, int]] = {}
    for slot, (init, param) in enumerate(zip(loop.args.get("init", ()), carried)):
        op = init.op if isinstance(init, Value) else None
        x = op.args.get("x") if op is not None and op.prim == "zeros_of" else None
        t = x.type if isinstance(x, Value) else None
        if t is not None and t.kind == "array" and t.dtype == "float64" and t.ndim:
            out[param.id] = (x, slot)
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
             in_loop: bool, accumulators: dict[int, tuple[Value, int]]) -> None:
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
                acc = _accumulator(op, scatters, others, block, uses, popped, accumulators)
                ops += _assembled(op, scatters, others, popped, acc)
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


def _accumulator(root: Op, scatters: list[Op], others: list[Value], block: Block,
                 uses: dict[int, int], popped: dict[int, Value],
                 accumulators: dict[int, tuple[Value, int]]) -> Value | None:
    """The loop-carried adjoint ``acc`` among ``others`` that the scatters may be added
    into element by element (``acc[c] = acc[c] + g``, written in place by the backend where
    nothing else holds ``acc``) instead of into a new zeros array added to it: ``acc``
    starts as ``zeros_of(x)`` with ``x`` the array every scatter's shape is of, the tree's
    value is the body's next ``acc`` (so it keeps ``x``'s shape and dtype), nothing else
    reads ``acc``, and every index names one element (``acc[c]`` is a number, not a view).
    The tree's value is read by nothing but that one yield (no other slot, no tape push
    holds the array the next iteration writes into)."""
    if not scatters or uses.get(root.out.id) != 1:
        return None
    for acc in others:
        found = accumulators.get(acc.id) if isinstance(acc, Value) else None
        if found is None or uses.get(acc.id) != 1:
            continue
        x, slot = found
        if slot >= len(block.results) or block.results[slot] is not root.out:
            continue
        if all(_shape_of(s.args["shape"], popped) is x
               and len(_index_key(s.args["index"]) or ()) == x.type.ndim for s in scatters):
            return acc
    return None


def _shape_of(s: Any, popped: dict[int, Value]) -> Value | None:
    """``v`` when ``s`` is ``shape(x=v)`` (possibly saved on a tape)."""
    if isinstance(s, Value) and s.id in popped:
        s = popped[s.id]
    if isinstance(s, Value) and s.op is not None and s.op.prim == "shape":
        return s.op.args.get("x")
    return None


def _assembled(root: Op, scatters: list[Op], others: list[Value],
               popped: dict[int, Value], acc: Value | None = None) -> list[Op]:
    """The ops computing ``root``'s value: one zeros array per shape, written per index,
    added to the other leaves (``root``'s output Value kept, so its readers stay); with a
    carried accumulator ``acc`` (:func:`_accumulator`), each index's sum is added into
    ``acc``'s element instead (one scalar read and one write, no array made)."""
    line = root.line
    new: list[Op] = []
    groups: dict[int, list[Op]] = {}
    for s in scatters:
        groups.setdefault(s.args["shape"].id, []).append(s)
    arrays: list[Value] = []
    others = list(others)
    if acc is not None:
        others.remove(acc)
    for members in groups.values():
        if acc is None and len({len(_index_key(s.args["index"]) or ()) for s in members}) > 1:
            # y[0] and y[0, 1] overlap: those stay scatters, added as they were
            others += [s.out for s in members]
            continue
        shape = members[0].args["shape"]
        kind = _float64_shape(shape, popped)
        if acc is not None:
            array = acc
        else:
            z = Op("zeros", {"shape": shape, "dtype": _none(new, line)}, [Value(type=kind)],
                   {"rule": RULES["zeros"]}, line=line)
            new.append(z)
            array = z.out
        by_index: dict[tuple[int, ...], list[Op]] = {}
        for s in members:
            by_index.setdefault(_index_key(s.args["index"]), []).append(s)
        for same in by_index.values():
            index = same[0].args["index"]
            total = same[0].args["x"]
            if acc is not None:  # the element so far first: acc[c] + g, as acc + scatter
                read = Op("getitem", {"x": array, "index": index},
                          [Value(type=AType("scalar", 0, "float64"))],
                          {"rule": RULES["getitem"]}, line=line)
                new.append(read)
                total = _add(new, read.out, total, line)
            for s in same[1:]:
                total = _add(new, total, s.args["x"], line)
            put = Op("setitem", {"x": array, "values": total, "index": index},
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


def _add(new: list[Op], x: Any, y: Any, line: int | None) -> Value:
    add = Op("add", {"x": x, "y": y}, [Value()], {"rule": RULES["add"]}, line=line)
    new.append(add)
    return add.out


def _none(new: list[Op], line: int | None) -> Value:
    const = Op("const", {}, [Value(type=NONE)], {"value": None}, line=line)
    new.append(const)
    return const.out
