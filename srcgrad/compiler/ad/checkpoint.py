"""Reverse mode through a call of an ``sg.checkpoint``-wrapped function.

The frontend stamps the ops of each such call with one token (``ir.core.CHECKPOINT``).
Walking a block backwards, :mod:`.regions` hands the whole group to :func:`recompute`
when it meets the group's last op. The forward pass keeps running the original ops, but
no adjoint reads their values: the adjoint block gets a fresh copy of the group that reads
only the call's inputs as this scope sees them (in a loop body: popped from the tape, so
the tape holds the arguments and nothing of the call's internals), and the group's
adjoint is built over that copy. The arithmetic is the same, so the gradient is the
unmarked one to the last bit. Ops that must not run twice (``print``, an opaque call such
as a random draw) are not repeated: their results are saved like the arguments.

    for i in range(n):                  for i in range(n): s = step(s); _tape.append((s_in,))
        s = sg.checkpoint(step)(s)  ->  for i in reversed(range(n)): s_in, = _tape.pop()
                                            <step's ops on s_in>     # recomputed
                                            <their adjoint>
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.builder import clone_block
from ..ir.core import (
    CHECKPOINT,
    USER_ARITHMETIC,
    USER_CHECK,
    Block,
    Function,
    Op,
    Value,
    checkpoint_mark,
)
from ..passes.rewrite import EFFECTS
from .scope import Scope


def groups(ops: list[Op], active: set[int]) -> dict[int, list[Op]]:
    """token -> the ops of that checkpointed call in ``ops`` (in order), for the calls
    that can be recomputed. A call is differentiated as if unmarked when an active op of
    something else sits between its ops (another transform placed it there: it would need
    the call's values in between), or when one of its active values comes from an op that
    must not run twice (see :func:`_repeats`)."""
    found: dict[int, list[int]] = {}
    for k, op in enumerate(ops):
        mark = checkpoint_mark(op)
        if mark is not None and mark[0] == "primal":
            found.setdefault(mark[1], []).append(k)
    out = {}
    for token, where in found.items():
        members = set(where)
        between = (ops[k] for k in range(where[0], where[-1] + 1) if k not in members)
        once = (ops[k] for k in where if not _repeats(ops[k]))
        if not any(o.id in active for op in (*between, *once) for o in op.outputs):
            out[token] = [ops[k] for k in where]
    return out


def _repeats(op: Op) -> bool:
    """May ``op`` run again for the adjoint? Not when it acts on the world or draws from
    it (a ``print``, an opaque call such as ``np.random.random_sample``, here or in its
    regions): a second draw would silently give the gradient of another mask, so its
    result is what the forward pass computed, saved like an argument."""
    return op.prim not in EFFECTS and not any(
        inner.prim in EFFECTS for r in op.regions for inner in r.walk())


def recompute(scope: Scope, group: list[Op],
              backprop_ops: Callable[[Scope, list[Op]], None]) -> None:
    """The adjoint of ``group`` (one checkpointed call's ops in ``scope.primal``), built
    over a copy of the group recomputed in ``scope``'s adjoint block."""
    seeded = [o for op in group for o in op.outputs if o.id in scope.table]
    if not seeded:
        return
    group = [op for op in group if _repeats(op)]  # the others' results are inputs here
    defined = _defined(group)
    mapping: dict[Value, Value] = {}
    for x in _free_inputs(group, defined):
        mapping[x] = scope.visible(x)  # an argument: kept (or taped) by the forward pass
    free = dict(mapping)
    block = scope.builder.block
    copy = clone_block(Block(ops=group), mapping)
    for op in copy.ops:
        mark = checkpoint_mark(op)
        if mark is not None:
            op.attrs[CHECKPOINT] = ("recompute", mark[1], mark[2])
        # (the forward pass ran the user's op and raised there if it raises: a copy
        # nothing reads need not stay)
        op.attrs.pop(USER_ARITHMETIC, None)
        op.attrs.pop(USER_CHECK, None)
        op.line = scope.builder.line if op.line is None else op.line
    block.ops.extend(copy.ops)
    _own(copy.ops, block, scope.owner)
    for old, new in mapping.items():
        if old.id in scope.active:
            scope.active.add(new.id)
    child = _Recompute(scope, block, {seen.id: x for x, seen in free.items()})
    for o in seeded:
        child.accumulate(mapping[o], scope.table.pop(o.id))
        scope.primal_of.pop(o.id, None)
    backprop_ops(child, copy.ops)
    for x, seen in free.items():  # what a loop inside the copy accumulated on its own
        if seen.id in child.table and x.id in scope.active:
            scope.accumulate(x, child.table[seen.id])


class _Recompute(Scope):
    """The scope of the recomputed copy, in ``parent``'s adjoint block. A contribution to
    one of the call's inputs goes straight to ``parent`` (for input ``x``, not the copy of
    it the adjoint block sees), in the order the unmarked call's adjoint adds it: the sums
    are then the same floating-point sums, so the gradient is the same bits."""

    def __init__(self, parent: Scope, block: Block, inputs: dict[int, Value]) -> None:
        super().__init__(parent.fn, block, parent.builder, parent.active, parent.owner,
                         parent)
        self._inputs = inputs  # id of the value the copy reads -> the caller's value

    def accumulate(self, x: Value, ct: Value) -> None:
        primal = self._inputs.get(x.id)
        if primal is not None and self.parent is not None:
            if primal.id in self.parent.active:
                self.parent.accumulate(primal, ct)
            return
        super().accumulate(x, ct)


def strip_primal_marks(fn: Function) -> None:
    """Drop the frontend's marks once a transform is done with them: the derivative's own
    ops are not the user's call any more (a second transform of them differentiates them
    as they are), while ``recompute`` marks stay to keep the copies apart from CSE."""
    for op in fn.body.walk():
        mark = checkpoint_mark(op)
        if mark is not None and mark[0] == "primal":
            del op.attrs[CHECKPOINT]


def _defined(group: list[Op]) -> set[int]:
    ids: set[int] = set()
    for top in group:
        for op in [top, *(inner for r in top.regions for inner in r.walk())]:
            ids.update(o.id for o in op.outputs)
            for r in op.regions:
                ids.update(p.id for p in r.params)
    return ids


def _free_inputs(group: list[Op], defined: set[int]) -> list[Value]:
    """The values the group reads that it does not define (its inputs), in first-read
    order."""
    seen: dict[int, Value] = {}
    for top in group:
        for op in [top, *(inner for r in top.regions for inner in r.walk())]:
            reads = list(op.operands())
            for r in op.regions:
                reads += [v for v in r.results if isinstance(v, Value)]
            for v in reads:
                if v.id not in defined:
                    seen.setdefault(v.id, v)
    return list(seen.values())


def _own(ops: list[Op], block: Block, owner: dict[int, Block]) -> None:
    for op in ops:
        for o in op.outputs:
            owner[o.id] = block
        for r in op.regions:
            for p in r.params:
                owner[p.id] = r
            _own(r.ops, r, owner)
