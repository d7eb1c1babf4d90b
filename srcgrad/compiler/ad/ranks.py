"""The ranks (ndims) of a function's values, and which have equal shapes, where the ops say.

Batched forward mode (:mod:`.batching`) pads an elementwise op's tangent rows to the
output's rank only where an input's rank may differ from it, and broadcasts the result
only where a rank-0 output may not already have its shape. The abstract types say the rank
of most values, but not of those a loop carries or a tape pops in a derivative's IR (a
Hessian's inner gradient): they are ``any``. This walk fills those in from what is certain
(a rank is recorded only where every input's is known, and a loop-carried value's only if
the body gives it back with the rank it came in with), so every rank it returns is exact;
a value it cannot tell is left out and the op keeps its run-time padding. Values with the
same *shape key* have the same shape (an argument and the zeros, casts and scatters made
with its shape, and elementwise results of same-keyed inputs), so an elementwise op on them
needs no broadcast of its tangent rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcgrad.rules import ELEMENTWISE

from ..ir.core import Block, Function, Op, Value, const_value
from ..passes.shape_classes import slice_drops
from .activity import rule_of
from .tape import Tapes

# primitives whose result has the rank of the input named
_SAME_AS = {"seed_one": "out", "zeros_of": "x", "like": "x", "stop_gradient": "x",
            "checked_seed": "seed", "seed_of_shape": "seed", "negative": "x"}
# primitives whose result has the shape given by their ``shape`` param
_TO_SHAPE = frozenset({"scatter_add", "unbroadcast", "rebroadcast", "unreduce"})


class Facts:
    """Ranks and shape keys of a function's values (by value id)."""

    def __init__(self, rank: dict[int, int], key: dict[int, Any],
                 shape_key: dict[int, Any] | None = None) -> None:
        self.rank = rank
        self.key = key
        self.shape_key = shape_key or {}  # a shape tuple's id -> the key of its values
        self.top_level: set[int] = set()  # values the function's own block defines
        self.seeds: list[Value] = []  # seeds whose products batching left out (.batching)

    def same_shape(self, values: list[Value]) -> bool:
        keys = {self.key.get(v.id) for v in values}
        return len(keys) == 1 and None not in keys


def value_ranks(fn: Function, tapes: Tapes) -> Facts:
    """The rank of every value whose rank the ops determine, and the shape keys."""
    r = _Ranks(tapes)
    for p in fn.params:
        r.seed(p)
    r.block(fn.body)
    facts = Facts(r.rank, r.key, r.shape_key)
    facts.top_level = {o.id for op in fn.body.ops for o in op.outputs}
    return facts


class _Ranks:
    def __init__(self, tapes: Tapes) -> None:
        self.tapes = tapes
        self.rank: dict[int, int] = {}
        self.lengths: dict[int, int] = {}  # a shape tuple's value id -> its length
        self.key: dict[int, Any] = {}  # value id -> a token equal for equal shapes
        self.shape_key: dict[int, Any] = {}  # a shape tuple's value id -> its values' key
        self.depth = 0  # loops around the op being read
        self.top_shapes: set[int] = set()  # shape tuples computed outside every loop

    def of(self, v: Any) -> int | None:
        if not isinstance(v, Value):
            return None
        if v.id in self.rank:
            return self.rank[v.id]
        is_const, c = const_value(v)
        if is_const and isinstance(c, (int, float, np.ndarray, np.generic)) \
                and not isinstance(c, bool):
            return int(np.ndim(c))
        t = v.type
        return t.known_ndim if t is not None else None

    def length(self, v: Any) -> int | None:
        """The length of a shape tuple value (a constant or ``np.shape`` of a known rank)."""
        if not isinstance(v, Value):
            return None
        is_const, c = const_value(v)
        if is_const and isinstance(c, tuple):
            return len(c)
        return self.lengths.get(v.id)

    def seed(self, v: Value) -> None:
        t = v.type
        if t is not None and t.known_ndim is not None:
            self.rank[v.id] = t.known_ndim
        if t is not None and t.kind in ("float", "scalar", "array"):
            self.key[v.id] = "scalar" if self.of(v) == 0 else ("param", v.id)

    def key_of(self, v: Any) -> Any:
        if not isinstance(v, Value):
            return None
        return "scalar" if self.of(v) == 0 else self.key.get(v.id)

    def set(self, v: Value, rank: int | None, key: Any = None) -> None:
        if rank is not None:
            self.rank[v.id] = rank
        else:
            self.rank.pop(v.id, None)
        if key is not None or rank == 0:
            self.key[v.id] = "scalar" if rank == 0 else key
        else:
            self.key.pop(v.id, None)

    def block(self, block: Block) -> None:
        for op in block.ops:
            if op.prim == "if":
                self.branch(op)
            elif op.regions:
                self.loop(op)
            else:
                self.op(op)

    def branch(self, op: Op) -> None:
        for region in op.regions:
            self.block(region)
        for k, out in enumerate(op.outputs):
            results = [r.results[k] for r in op.regions if k < len(r.results)]
            found = {self.of(v) for v in results}
            keys = {self.key_of(v) for v in results}
            self.set(out, found.pop() if len(found) == 1 else None,
                     keys.pop() if len(keys) == 1 else None)

    def loop(self, op: Op) -> None:
        self.depth += 1
        try:
            self._loop(op)
        finally:
            self.depth -= 1
        body = op.regions[-1]
        init = list(op.args.get("init", ()))
        carried = body.params[1:] if op.prim == "for_range" else body.params
        for out, p in zip(op.outputs[:len(init)], carried):
            self.set(out, self.rank.get(p.id), self.key.get(p.id))

    def _loop(self, op: Op) -> None:
        body = op.regions[-1]
        init = list(op.args.get("init", ()))
        carried = body.params[1:] if op.prim == "for_range" else body.params
        if op.prim == "for_range":
            self.rank[body.params[0].id] = 0
        guess = [(self.of(v), self.key_of(v)) for v in init]
        for _ in range(3):  # assume the ranks they come in with; keep those the body keeps
            for p, g in zip(carried, guess):
                self.set(p, *g)
            if op.prim == "while":
                for p, g in zip(op.regions[0].params, guess):
                    self.set(p, *g)
                self.block(op.regions[0])
            self.block(body)
            back = [(self.of(v), self.key_of(v)) for v in body.results[:len(init)]]
            if back == guess:
                break
            guess = [(g[0] if g[0] == b[0] else None, g[1] if g[1] == b[1] else None)
                     for g, b in zip(guess, back)]
        else:
            guess = [(None, None)] * len(init)
        for p, g in zip(carried, guess):
            self.set(p, *g)

    def op(self, op: Op) -> None:
        if op.prim == "tape_pop":
            push = self.tapes.push_for(op)
            if push is not None:
                for out, item in zip(op.outputs, push.args["items"]):
                    # (a key made in a loop's body is one iteration's: the pops of one
                    # reverse iteration need not come from the same forward iteration)
                    key = self.key_of(item)
                    self.set(out, self.of(item), key if self.stable(key) else None)
            return
        if not op.outputs:
            return
        out = op.outputs[0]
        if op.prim == "shape":
            if self.depth == 0:
                self.top_shapes.add(out.id)
            x = op.args.get("x")
            n = self.of(x)
            if n is not None:
                self.lengths[out.id] = n
            if self.key_of(x) is not None:
                self.shape_key[out.id] = self.key_of(x)
            return
        if op.prim in _SAME_AS:
            x = op.args.get(_SAME_AS[op.prim])
            self.set(out, self.of(x), self.key_of(x))
            return
        if op.prim in _TO_SHAPE:
            shape = op.args.get("shape")
            key = self.shape_key.get(shape.id, ("shape", shape.id)) \
                if isinstance(shape, Value) else None
            self.set(out, self.length(shape), key)
            return
        if op.prim == "float":
            self.set(out, 0)
            return
        if op.prim == "getitem":
            self.set(out, self.indexed(op), sliced_key(self.key_of(op.args.get("x")),
                                                       op.args.get("index")))
            return
        rule = rule_of(op)
        if rule is not None and rule.kind == ELEMENTWISE and rule.variadic is None:
            args = [op.args[n] for n in rule.inputs if n in op.args]
            ranks = [self.of(a) for a in args]
            keys = {self.key_of(a) for a in args}
            if len(keys) == 2 and "scalar" in keys:  # (a 0-d input takes the other's shape)
                keys.discard("scalar")
            if ranks and None not in ranks:
                self.set(out, max(ranks),  # type: ignore[type-var]
                         keys.pop() if len(keys) == 1 else None)
            else:
                self.set(out, None)

    def stable(self, key: Any) -> bool:
        """A shape key that means the same shape in every iteration of every loop."""
        if isinstance(key, tuple) and key[0] == "sliced":
            return self.stable(key[1])
        return key == "scalar" or (isinstance(key, tuple) and (
            key[0] == "param" or key[1] in self.top_shapes))

    def indexed(self, op: Op) -> int | None:
        """The rank of ``x[index]``: an int (run-time or constant) drops an axis; a constant
        index is applied to a stand-in of ``x``'s rank."""
        r = self.of(op.args.get("x"))
        index = op.args.get("index")
        if r is None or not isinstance(index, Value):
            return None
        is_const, c = const_value(index)
        if not is_const:
            t = index.type
            return r - 1 if t is not None and t.kind == "int" and r >= 1 else None
        try:  # (a stand-in long enough for any constant int or slice, allocating nothing)
            return int(np.broadcast_to(np.float64(0.0), (1 << 40,) * r)[c].ndim)
        except (IndexError, TypeError, ValueError):
            return None



def sliced_key(key: Any, index: Any) -> Any:
    """The shape key of ``x[index]`` for ``x`` of shape key ``key``, where the index is
    constant slices that each drop a fixed count of elements from an axis (``x[1:]`` and
    ``x[:-1]`` of one array have one shape: :func:`..passes.shape_classes.slice_drops`),
    or None."""
    if key is None or key == "scalar":
        return None
    drops = slice_drops(index)
    if drops is None:
        return None
    return key if not drops else ("sliced", key, drops)
