"""Backend, statement emitter's naming half: which name a statement's result takes.

A result rebinds the name of an operand that dies at that statement, as a person writes
``z = z * z`` or reuses a temporary: the old array is then freed at once, as in a nested
expression, not when the function returns. Mixed into :class:`.emit._Emitter`, whose
``names`` (:class:`.names.ValueNames`), ``last_use`` (top-level statement of each value's
last read), ``plan`` (values written nested) and ``fn`` it reads.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Op, Value


class NameReuse:
    names: Any
    last_use: dict[int, int]
    plan: dict[int, int]
    fn: Any

    def reusable_name(self, op: Op, out: Value, index: int) -> str | None:
        """Rebind an input's name (``z = z * z``) when that input dies here."""
        family = self.names.family(out)
        if family is None:
            return self._reusable_temporary(op, index)
        for v in self.leaf_operands(op):
            name = self.names.names.get(v.id)
            if name is not None and self.names.base.get(name) == family \
                    and self.last_use.get(v.id) == index and v not in self.fn.params \
                    and (v.adjoint_of is None) == (out.adjoint_of is None):
                # (a user's variable ``dx`` and the adjoint of ``x`` share a family name)
                return name
        return None

    def _reusable_temporary(self, op: Op, index: int) -> str | None:
        """A temporary takes the name of a temporary operand that dies here, so the old
        array is freed now (as in a nested expression), not when the function returns."""
        if op.prim == "shape":
            return None  # a shape tuple keeps its own name (and frees nothing)
        # an array's name first: rebinding a scalar's would keep the array alive
        for v in sorted(self.leaf_operands(op), key=_holds_a_scalar):
            if v.op is not None and v.op.prim == "shape":
                continue
            name = self.names.names.get(v.id)
            if name is not None and name.startswith("_t") and self.names.family(v) is None \
                    and self.last_use.get(v.id) == index and v not in self.fn.params:
                return name
        return None

    def leaf_operands(self, op: Op) -> list[Value]:
        """What the statement of ``op`` reads: its operands, those written nested replaced
        by what they read."""
        out: list[Value] = []
        for v in op.operands():
            if v.id in self.plan and v.op is not None:
                out += self.leaf_operands(v.op)
            else:
                out.append(v)
        return out


def _holds_a_scalar(v: Value, depth: int = 0) -> bool:
    """Known to hold one number (a 0-d type, an element count, arithmetic on those)."""
    if v.type is not None and v.type.known_ndim == 0:
        return True
    if v.op is None or depth > 4:
        return False
    if v.op.prim == "reduced_count":
        return True
    return v.op.prim in ("multiply", "divide", "add", "subtract", "negative") and all(
        _holds_a_scalar(w, depth + 1) for w in v.op.operands())
