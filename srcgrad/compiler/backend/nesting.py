"""Backend: which single-use values are written inside the expression that reads them.

The IR gives every value its own op, and a literal print gives every op its own statement
and name (``_t1 = y * x; _t2 = math.sin(y); y_1 = _t1 + _t2``). For numbers those loads and
stores cost as much as the arithmetic, and the text reads unlike the user's. So the emitter
asks :func:`nesting_plan` which values to *nest*: a pure op whose one result is read exactly
once in the whole function, by a later plain op of the same block, is not emitted where it
stands but written as a sub-expression of its reader, when both came from the same user
line (so each ``# line N`` comment still heads the code of line N) or when it is a nameless
number made for a later line's number (a tangent's part computed where its user line
stood, ``dy = dy + (de * step - (de - 1.0)) / e``: a user's value read on another line has
a name and keeps its statement)::

    _t1 = y * x                         (nested)
    _t2 = math.sin(y)           ->      (nested)
    y_1 = _t1 + _t2                     y_1 = y * x + math.sin(y)

Moving a computation later is sound when nothing between changes what it reads: the IR is
SSA, so only a *name* rebound in between (an emitted name reused, a loop slot assigned), an
array written in place, or an opaque call could. The emitter's liveness (name reuse, slots
assigned directly, in-place writes and accumulation) reads :func:`read_positions`, which
counts a nested op's reads at its reader's position, so none of those happen while a nested
expression still needs the old value. Opaque calls, control flow and tape ops are barriers.
Numbers move past any other op; an array op only joins the run of ops right before its
reader (so no array is kept alive longer than its expression needs: nested temporaries are
freed as Python frees them).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator

from ..ir.core import Block, Function, Op, Value
from . import floats
from .inplace import IN_PLACE_FORMS

# Ops never nested and never moved across: they act on the world, hold control flow or
# manage the tape (whose pushes and pops must keep their order)
_BARRIERS = frozenset({"call", "print", "assert", "raise", "tape_new", "tape_push",
                       "tape_pop", "tape_len", "list_pop"})
_NEVER_NESTED = _BARRIERS | {"const", "shape", "setitem", "captured"}
# At most this many ops written into one statement, so a long chain of one user line still
# reads as a few short statements
MAX_NESTED = 5


def nesting_plan(fn: Function) -> dict[int, int]:
    """Value id -> id of the op that reads it, for every value written nested."""
    reads = _count_reads(fn.body, {})
    plan: dict[int, int] = {}
    _plan_block(fn.body, reads, plan)
    return plan


def read_positions(block: Block, plan: dict[int, int]) -> Iterator[tuple[int, Value]]:
    """``(index, value)`` for each read by an op of ``block`` (reads inside its regions
    included), a nested op's reads placed at the index of the statement it is written in."""
    index = {id(op): i for i, op in enumerate(block.ops)}
    for i, op in enumerate(block.ops):
        at, current = i, op
        while len(current.outputs) == 1 and current.out.id in plan:
            reader = plan[current.out.id]
            if reader not in index:
                break
            at = index[reader]
            current = block.ops[at]
        for v in all_reads(op):
            yield at, v


def _plan_block(block: Block, reads: dict[int, int], plan: dict[int, int]) -> None:
    ops = block.ops
    reader_of = {v.id: op for op in ops for v in op.operands()}  # (single reads only used)
    results = {v.id for v in block.results if isinstance(v, Value)}
    # (only the results assigned to some parameter: at the top level none is, and the
    # ops standing between need not be looked at)
    slot_of = {v: slots for v, slots in _slots(block).items() if slots}
    size: dict[int, int] = {}  # op -> ops written in its statement so far, itself included
    defined_at = {o.id: i for i, op in enumerate(ops) for o in op.outputs}
    in_place = _updates_in_place(block, reads, results)
    # A statement's scan back (below) meets the ops whose one result is read by an op of
    # its tree (``candidates``: found from the tree's operands, highest first) and, between
    # them, ops that only stand between (they end ``adjacent``, add their loop slots to
    # ``passed``) or stop the scan (a barrier, a region op: ``stop_below``). Visiting only
    # the candidates keeps the plan of a scan over every op below the statement, which
    # made emission quadratic in the length of a straight-line function (each adjoint
    # reads forward values from far back).
    stop_below = [-1] * (len(ops) + 1)  # position p -> the highest stop below p (or -1)
    standing_below = [0] * (len(ops) + 1)  # position p -> how many non-constants below p
    for i, op in enumerate(ops):
        stop = op.prim in _BARRIERS or bool(op.regions)
        stop_below[i + 1] = i if stop else stop_below[i]
        standing_below[i + 1] = standing_below[i] + (op.prim != "const")
    for j, statement in enumerate(ops):
        for region in statement.regions:
            _plan_block(region, reads, plan)
        if not (_can_read_nested(statement) or _tests_nested(statement)):
            continue
        tree = {id(statement)}  # the statement and the ops nested into it so far
        total = 1
        adjacent = True  # no op left standing between here and the statement yet
        passed: set[int] = set()  # loop slots whose next value (assigned directly) stands between
        # the earliest op the tree reads: below it nothing can join
        lowest = _earliest(all_reads(statement), defined_at, j)
        candidates: list[int] = []  # (negated positions: a max-heap)
        _push_read(statement, reader_of, defined_at, candidates)
        above = j  # the scan has come down to here
        while candidates:
            k = -heapq.heappop(candidates)
            if k >= above:
                continue  # (read twice by the tree: pushed twice)
            if k < lowest or stop_below[above] >= k:
                break
            if standing_below[above] - standing_below[k + 1]:
                adjacent = False  # an op between stays standing
                if slot_of:
                    for op in ops[k + 1:above]:
                        if op.prim != "const":
                            for o in op.outputs:
                                passed |= slot_of.get(o.id, set())
            above = k
            op = ops[k]
            if op.prim == "const":
                continue
            if op.out.id in plan:
                tree.add(id(op))  # nested into an op nested here: counted in its size
                lowest = _earliest(op.operands(), defined_at, lowest)
                _push_read(op, reader_of, defined_at, candidates)
                continue
            reader = reader_of[op.out.id]
            if (_nestable(op, reads, results, in_place)
                    and not _accumulator_of(op.out, reader, in_place)
                    and not _written_into(op.out, reader)
                    and (op.line == statement.line or _a_later_lines_part(op, statement))
                    and total + size.get(id(op), 1) <= MAX_NESTED + 1
                    and (adjacent or _numbers_only(op))
                    and not (passed and _reads_params(op, passed, plan))):
                plan[op.out.id] = id(reader)
                tree.add(id(op))
                lowest = _earliest(op.operands(), defined_at, lowest)
                total += size.get(id(op), 1)
                _push_read(op, reader_of, defined_at, candidates)
                continue
            adjacent = False
            if slot_of:
                for o in op.outputs:
                    passed |= slot_of.get(o.id, set())
        size[id(statement)] = total


def _push_read(op: Op, reader_of: dict[int, Op], defined_at: dict[int, int],
               candidates: list[int]) -> None:
    """Push the position of each op of the block whose one result ``op`` is the (last)
    reader of: the ops that may be written inside ``op``."""
    for v in op.operands():
        k = defined_at.get(v.id)
        if k is not None and reader_of.get(v.id) is op and len(v.op.outputs) == 1:
            heapq.heappush(candidates, -k)


def _earliest(reads: Iterable[Value], defined_at: dict[int, int], lowest: int) -> int:
    """The lowest index in the block among ``lowest`` and the definitions of ``reads``."""
    for v in reads:
        lowest = min(lowest, defined_at.get(v.id, lowest))
    return lowest


def _a_later_lines_part(op: Op, statement: Op) -> bool:
    """A nameless number made for a later line (a tangent's part computed where its
    user line stood, ``_t1 = de - 1.0``, read once by the next line's tangent) is written
    in that line's expression, as a person writes a tangent: a user's value that another
    line reads has a name, and arrays stay on their own lines."""
    return (op.out.name is None and op.out.adjoint_of is None and _numbers_only(op)
            and len(statement.outputs) == 1 and _a_number(statement.out))


def _slots(block: Block) -> dict[int, set[int]]:
    """Block result id -> the ids of the parameters whose name it is assigned to: a loop
    body's carried parameters are its last ones, one per result (a ``for`` body's first is
    its index); where that does not line up, every parameter (the safe answer)."""
    results = [v for v in block.results if isinstance(v, Value)]
    if len(block.results) > len(block.params) or len(results) != len(block.results):
        every = {p.id for p in block.params}
        return {v.id: every for v in results}
    carried = block.params[len(block.params) - len(block.results):]
    slots: dict[int, set[int]] = {}
    for p, v in zip(carried, results):
        slots.setdefault(v.id, set()).add(p.id)
    return slots


def _reads_params(op: Op, params: set[int], plan: dict[int, int], depth: int = 0) -> bool:
    """Whether ``op`` (with what is nested into it) reads a parameter of its block: moved
    past the op that computes that loop slot's next value, it would need the old value
    kept under another name (``y_1 = ...; ...; y = y_1``) instead of assigned directly."""
    return depth < MAX_NESTED + 1 and any(
        v.id in params or (v.id in plan and v.op is not None
                           and _reads_params(v.op, params, plan, depth + 1))
        for v in op.operands())


def _can_read_nested(op: Op) -> bool:
    # a setitem is a statement (``z[1] = a + b``): its value may be an expression
    return (not op.regions and (op.prim not in _NEVER_NESTED or op.prim == "setitem")
            and len(op.outputs) == 1 and not floats.needs_guard(op))


def _tests_nested(op: Op) -> bool:
    """An ``if`` writes its test in its own line (``if mid * mid - a > 0.0:``, not a name
    assigned first): its condition is its one operand, read before either branch runs."""
    return op.prim == "if" and len(op.regions) == 2


def _nestable(op: Op, reads: dict[int, int], results: set[int], in_place: set[int]
              ) -> bool:
    return (_can_read_nested(op) and op.prim not in _NEVER_NESTED
            and op.prim not in floats.STATEMENT_OPS and reads.get(op.out.id, 0) == 1
            and op.out.id not in results and id(op) not in in_place
            and op.prim not in IN_PLACE_FORMS)  # (its own statement: maybe a write)


def _named(v: Value, reads: dict[int, int], results: set[int], in_place: set[int]) -> bool:
    """``v`` has a name whatever the plan: a parameter, a value read more than once or
    a block's result, or made by an op that is never nested."""
    op = v.op
    return (op is None or id(op) in in_place or reads.get(v.id, 0) != 1 or v.id in results
            or not _can_read_nested(op) or op.prim in _NEVER_NESTED
            or op.prim in floats.STATEMENT_OPS or op.prim in IN_PLACE_FORMS)


def _updates_in_place(block: Block, reads: dict[int, int], results: set[int]) -> set[int]:
    """``id(op)`` of each op of ``block`` that stays a statement to update its accumulator
    in place: an adjoint's sum (``dx += t``, :func:`_sums_in_place`), and an update of a
    typed array of two axes or more that has a name anyway (``r = h @ W + b`` then
    ``r -= y``, ``r *= 2.0``: NumPy reuses the temporary of an expression, but no array
    with a name, and a new large array is a fresh mapping the first write page-faults
    in). An update of a nameless matrix stays nested (``m @ a + m @ b``: NumPy writes
    the sum into the first product). In program order, so a chain of updates of one
    array are statements one after another."""
    found: set[int] = set()
    for op in block.ops:
        key = op.attrs.get("accumulate")
        if key is None:
            continue
        acc = op.args.get(key)
        if _sums_in_place(op) or (_a_matrix(acc)
                                  and _named(acc, reads, results, found)):
            found.add(id(op))
    return found


def _written_into(v: Value, reader: Op) -> bool:
    """``v`` is the array a ``setitem`` writes into: it keeps its name (``z[1] = a``)."""
    return reader.prim == "setitem" and reader.args.get("x") is v


def _accumulator_of(v: Value, reader: Op, in_place: set[int]) -> bool:
    """``v`` is the array ``reader`` adds another array into in place (``dx += t``, the
    sum of an adjoint's contributions): it keeps its name, so the sum allocates once.
    (``x * k + 1.0`` stays one expression as the user wrote it.)"""
    if reader.prim in IN_PLACE_FORMS:  # the array it may write into keeps its name
        return reader.args.get("x") is v
    key = reader.attrs.get("accumulate")
    if key is None or id(reader) not in in_place or reader.args.get(key) is not v:
        return False
    other = reader.args.get("y" if key == "x" else "x")
    return isinstance(other, Value) and not _a_number(other)


def _sums_in_place(op: Op) -> bool:
    """An adjoint's sum marked for ``+=``: its own statement, its accumulator named. (A
    ``-=``/``*=``/``/=`` mark, and a sum whose fit is checked as it runs, yield to nesting
    unless they update a named matrix (:func:`_updates_in_place`): within one line
    ``dh * a * 1.5`` stays one expression, whose temporaries NumPy itself reuses when
    large.)"""
    return (op.prim == "add" and not op.attrs.get("accumulate_checked", False)
            or op.attrs.get("rows_in_place", False)) \
        and "accumulate" in op.attrs  # (tangent rows: a statement, so no new array)


def _a_matrix(v: object) -> bool:
    """Typed an ndarray of two axes or more."""
    t = v.type if isinstance(v, Value) else None
    return t is not None and t.kind == "array" and (t.ndim or 0) >= 2


def _numbers_only(op: Op) -> bool:
    """Every value it reads and makes is known to be one number (no memory to free)."""
    return all(_a_number(v) for v in (*op.operands(), op.out))


def _a_number(v: Value, depth: int = 0) -> bool:
    t = v.type
    if t is not None and (t.kind != "any" or t.known_ndim == 0):
        return t.is_python_number or t.kind == "scalar" or t.known_ndim == 0
    # arithmetic on numbers is a number: forward mode's tangents of a float argument are
    # derived from a seed of unknown kind, so only their operands' types say so
    op = v.op
    rule = None if op is None else op.attrs.get("rule")
    return (rule is not None and rule.operator is not None and len(op.outputs) == 1
            and depth < 8 and all(_a_number(w, depth + 1) for w in op.operands()))


def all_reads(op: Op) -> list[Value]:
    """What ``op`` reads, including reads from inside its regions."""
    out = list(op.operands())
    for r in op.regions:
        for inner in r.ops:
            out.extend(all_reads(inner))
        out.extend(v for v in r.results if isinstance(v, Value))
    return out


def _count_reads(block: Block, counts: dict[int, int]) -> dict[int, int]:
    for op in block.ops:
        for v in op.operands():
            counts[v.id] = counts.get(v.id, 0) + 1
        for region in op.regions:
            _count_reads(region, counts)
    for v in block.results:
        if isinstance(v, Value):
            counts[v.id] = counts.get(v.id, 0) + 1
    return counts
