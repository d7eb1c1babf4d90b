"""Constant folding: a primitive whose inputs are all Python-number constants is evaluated
at compile time (its rule's implementation on Python scalars) and becomes a constant.

Runs after ``simplify`` (which leaves such ops when seeds fold to constants):

    %3 = const(-1.37)                        %3 = const(-1.37)
    %4 = negative(x=%3)          ->          %4 = const(1.37)
    %7 = multiply(x=1.03, y=0.5)             %7 = const(0.515)

An int constant meeting a Python float in ``+ - * /`` becomes a float constant (``2 * y``
from ``y ** 2``'s derivative is ``2.0 * y``): Python converts the int first anyway, so the
value is the same, without the conversion on every run. The same for a small int meeting
a NumPy float array or scalar (``1 - out * out`` from ``tanh``'s derivative is
``1.0 - out * out``): NumPy converts a Python int to the array's dtype more slowly than a
float (about 0.1 us of a 0.4 us operation on a few elements), to the same number.

``zeros_of(x)`` of a Python float is ``0.0``. Only Python ``int``/``float`` operands are
folded, and the result keeps Python's number type (a float stays a float, never a NumPy
scalar). Nothing that raises (``1 / 0``), gives a non-finite float, or gives an int beyond
2**53 (where NumPy's fixed width and Python's unbounded ints differ) is folded: it runs as
written.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...rules.registry import ELEMENTWISE, RULES
from ..ir.core import Block, Function, Op, Value, const_value
from ..ir.types import FLOAT, INT
from .negation import _floatish

_LIMIT = 2 ** 53
_INT_OPERAND = 2 ** 26  # so a product of two fits NumPy's int64 exactly
_SMALL_INT = 2 ** 11  # exact in every float dtype, float16 included


def fold_constants(fn: Function) -> None:
    _block(fn.body)


def _block(block: Block) -> None:
    floats: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region)
        folded = _evaluate(op) if op.prim != "zeros_of" else _zero_of_a_float(op)
        if folded is not None:
            op.prim, op.args, op.attrs = "const", {}, {"value": folded}
            op.out.type = FLOAT if type(folded) is float else INT
        else:
            floats += _int_constants_as_floats(op)
            _python_float_type(op)
    # (new const ops first: a constant is a literal wherever it is read)
    block.ops[:0] = floats


def _python_float_type(op: Op) -> None:
    """Arithmetic on Python floats is a Python float: typed so where it was made without a
    type (forward mode's tangents start from a seed of unknown kind, later folded to
    ``1.0``), so later passes see a number (``sink_loop_results`` moves only numbers)."""
    if op.prim not in _FLOAT_ARITHMETIC and op.prim != "negative" or len(op.outputs) != 1:
        return
    t = op.out.type
    if t is not None and t.kind != "any":
        return
    kinds = [v.type.kind if isinstance(v, Value) and v.type is not None else None
             for v in op.args.values()]
    if kinds and "float" in kinds and all(k in ("float", "int") for k in kinds):
        op.out.type = FLOAT


def _zero_of_a_float(op: Op) -> float | None:
    """``zeros_of(x)`` of a Python float is ``0.0`` (a tangent that starts at zero), known
    now rather than asked on every call."""
    x = op.args.get("x")
    t = x.type if isinstance(x, Value) else None
    return 0.0 if t is not None and t.kind == "float" and len(op.outputs) == 1 else None


_FLOAT_ARITHMETIC = ("add", "subtract", "multiply", "divide")


def _int_constants_as_floats(op: Op) -> list[Op]:
    """``2 * y`` with ``y`` a Python float: the operand ``2.0`` (a const op made for it)."""
    if op.prim not in _FLOAT_ARITHMETIC or set(op.args) != {"x", "y"}:
        return []
    x, y = op.args["x"], op.args["y"]
    made = []
    for key, other in (("x", y), ("y", x)):
        v = op.args[key]
        ok, c = const_value(v) if isinstance(v, Value) else (False, None)
        if ok and type(c) is int and isinstance(other, Value) and (
                (abs(c) <= _LIMIT and other.type is not None and other.type.kind == "float")
                or (abs(c) <= _SMALL_INT and _float_array(other))):
            const = Op("const", {}, [Value(type=FLOAT)], {"value": float(c)})
            op.args[key] = const.out
            made.append(const)
    return made


def _float_array(v: Value) -> bool:
    """A NumPy float array or scalar (typed so, or a derivative's float arithmetic): an
    int constant and its float convert to the same number of its dtype (NEP 50: a Python
    number takes the array's dtype), the float without the int's slower conversion."""
    t = v.type
    if t is not None and t.kind in ("array", "scalar"):
        return t.dtype is not None and np.dtype(t.dtype).kind == "f"
    return (t is None or t.kind == "any") and _floatish(v)


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
