"""Arrays freed where they die: ``del name`` after the last statement reading them.

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

from ..ir.core import Function, Value


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


def _owns_memory(v: Value, params: set[int]) -> bool:
    """Not a name for memory the caller or a module holds anyway: a global read, a
    constant, a view of a parameter or of a global (``x.reshape(...)``)."""
    while v.op is not None:
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
