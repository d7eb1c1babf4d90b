"""Arrays freed where they die: ``del name`` after the last statement reading them.
(The function's block, and a loop's body within one iteration: :func:`dying_in_body`.)

Where it sits: the emitter (``emit.py``) asks, after each top-level statement, which
arrays that statement read for the last time still sit under a name. A name keeps its
array alive until the function returns, so a gradient that reads a big forward value
(attention's scores ``q @ k.T``) once would hold every such array at once: at
attention's sizes that is the difference between a heap that reuses the blocks just
freed and one that grows and is trimmed on every call, page-faulting each array back in
(the gradient of a 4x64x64 block ran at twice the cost of the same code with the dead
arrays freed). A nested expression frees its temporaries as it goes; this does the same
for the statements the backend writes one per value.

Only arrays the function made are freed (typed arrays with an axis, and cotangents of
such; not a global read, a constant or a view of a parameter): numbers and shapes hold
no memory worth a statement, and the caller or the module holds the others anyway. A
name is deleted only while it still holds the dying value (nothing rebound it: an
in-place update ``dp -= t`` or a reused name hands the name to the next value, which
lives on), never a parameter or a result.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Value


def dying_by_statement(fn: Function, last_use: dict[int, int]) -> dict[int, list[Value]]:
    """Top-level statement index -> the array values of the top-level block whose last
    read is that statement (defined at top level, not parameters, not results)."""
    params = {p.id for p in fn.params}
    rows = fn.meta.get("row_arrays", frozenset())  # a batched pass's tangent rows
    dying: dict[int, list[Value]] = {}
    for op in fn.body.ops:
        for v in op.outputs:
            at = last_use.get(v.id)
            if at is None or at >= len(fn.body.ops) or v.id in params \
                    or not (holds_array(v) or v.id in rows) or not _owns_memory(v, params):
                continue
            dying.setdefault(at, []).append(v)
    return dying


def dying_in_body(block: Block, last_read: dict[int, int], fn: Function,
                  popped: dict[int, Value]) -> dict[int, list[Value]]:
    """The same for a loop's body, by statement index of ``block``: arrays an op of the
    body defines and a later op of the same iteration reads last. A body's value is
    defined afresh on every iteration, so its name is not read again before it is
    rebound; carried values, the body's results and what it appends to a list (a tape)
    are read past the last op and stay. Freed so, an iteration's dead arrays are reused
    by its own later statements: otherwise each lives until the next iteration rebinds
    its name, and the reverse loop of a per-sequence attention grew the heap by a
    score-sized array per iteration, page-faulting it back in after a trim."""
    params = {p.id for p in (*fn.params, *block.params)}
    dying: dict[int, list[Value]] = {}
    for op in block.ops:
        for v in op.outputs:
            at = last_read.get(v.id)
            if at is None or at >= len(block.ops) or not _body_array(v) \
                    or not _owns_memory(v, params, popped):
                continue
            dying.setdefault(at, []).append(v)
    return dying


def _body_array(v: Value) -> bool:
    """A matrix or higher (a cotangent typed ``any``, one made from popped values of a
    reverse loop, taken as its primal's type). A ``del`` is a statement run on every
    iteration: a loop over small state vectors (an ODE's, an RNN's) gains nothing from
    it, a loop making matrices (attention per sequence) is where the heap grows."""
    t = v.type
    if (t is None or t.kind == "any") and v.adjoint_of is not None:
        t = v.adjoint_of.type
    return t is not None and t.kind == "array" and t.ndim is not None and t.ndim >= 2


def _owns_memory(v: Value, params: set[int], popped: dict[int, Value] | None = None) -> bool:
    """Not a name for memory the caller or a module holds anyway: a global read, a
    constant, a view of a parameter or of a global (``x.reshape(...)``); ``popped``: a
    tape's popped value -> the item pushed (a reverse loop's ``row_1``, ``DATA[i]``)."""
    while v.op is not None:
        if popped and v.id in popped:
            v = popped[v.id]
            continue
        if v.op.prim in ("captured", "const"):
            return False
        rule = v.op.attrs.get("rule")
        x = v.op.args.get("x")
        if rule is None or not rule.view or not isinstance(x, Value):
            return True
        v = x
    return v.id not in params


def holds_array(v: Value) -> bool:
    """An array with an axis (a cotangent is shaped like its primal)."""
    t = v.type
    if t is None and v.adjoint_of is not None:
        t = v.adjoint_of.type
    return t is not None and t.kind == "array" and bool(t.ndim)


def deletable(values: list[Value], names: dict[int, str], holder: dict[str, int]) -> list[str]:
    """The names of ``values`` that still hold them (in definition order, no repeats)."""
    out: list[str] = []
    for v in values:
        name = names.get(v.id)
        if name is not None and holder.get(name) == v.id and name not in out:
            out.append(name)
    return out
