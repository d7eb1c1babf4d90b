"""Constant folding: a primitive whose inputs are all Python-number constants is evaluated
at compile time (its rule's implementation on Python scalars) and becomes a constant.

Runs after ``simplify`` (which leaves such ops when seeds fold to constants):

    %3 = const(-1.37)                        %3 = const(-1.37)
    %4 = negative(x=%3)          ->          %4 = const(1.37)
    %7 = multiply(x=1.03, y=0.5)             %7 = const(0.515)

Only Python ``int``/``float`` operands are folded, and the result keeps Python's number
type (a float stays a float, never a NumPy scalar). Nothing that raises (``1 / 0``), gives a
non-finite float, or gives an int beyond 2**53 (where NumPy's fixed width and Python's
unbounded ints differ) is folded: it runs as written.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ...rules.registry import ELEMENTWISE, RULES
from ..ir.core import Block, Function, Op, const_value
from ..ir.types import FLOAT, INT

_LIMIT = 2 ** 53
_INT_OPERAND = 2 ** 26  # so a product of two fits NumPy's int64 exactly


def fold_constants(fn: Function) -> None:
    _block(fn.body)


def _block(block: Block) -> None:
    for op in block.ops:
        for region in op.regions:
            _block(region)
        folded = _evaluate(op)
        if folded is not None:
            op.prim, op.args, op.attrs = "const", {}, {"value": folded}
            op.out.type = FLOAT if type(folded) is float else INT


def _evaluate(op: Op) -> int | float | None:
    rule = RULES.get(op.prim)
    # only correctly rounded ops: NumPy here and Python at run time agree to the bit
    if rule is None or not rule.correctly_rounded or rule.kind != ELEMENTWISE or rule.params \
            or rule.user or op.regions or len(op.outputs) != 1 or not op.args:
        return None
    if set(op.args) != set(rule.inputs):
        return None
    values: dict[str, Any] = {}
    for k in rule.inputs:
        v = op.args[k]
        ok, c = const_value(v) if not isinstance(v, tuple) else (False, None)
        if not ok or type(c) not in (int, float) or (
                type(c) is int and abs(c) > _INT_OPERAND):
            return None
        values[k] = c
    try:
        with warnings.catch_warnings(), _raise_on_float_errors():
            warnings.simplefilter("error")
            got = rule.impl(*values.values())
    except Exception:  # it raises (or warns) at run time too: leave it there
        return None
    if any(type(c) is float for c in values.values()) or isinstance(got, float):
        if not hasattr(got, "__float__") or isinstance(got, bool):
            return None
        got = float(got)
        return got if math.isfinite(got) else None
    if hasattr(got, "__index__") and not isinstance(got, bool) and type(got).__name__ \
            not in ("bool", "bool_"):
        got = int(got)
        return got if abs(got) <= _LIMIT else None
    return None


class _raise_on_float_errors:
    """``np.errstate(all='raise')`` without importing NumPy's context in every call."""

    def __enter__(self) -> None:
        import numpy as np
        self._old = np.seterr(all="raise")

    def __exit__(self, *exc: object) -> None:
        import numpy as np
        np.seterr(**self._old)
