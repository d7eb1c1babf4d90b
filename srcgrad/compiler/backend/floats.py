"""Backend: fast Python-float spellings that keep the semantics of what was written.

On Python floats the emitter prints ``math.sqrt(x)`` for ``np.sqrt(x)`` and ``a / b`` for
``np.divide(a, b)``: ten times faster, and the same number wherever both succeed. They differ
where NumPy returns inf/nan and Python raises (``1.0 / 0.0``, ``math.sqrt(-1.0)``,
``math.exp(1000.0)``) or, for ``**``, returns a complex number (``(-8.0) ** 0.5``).

Which semantics an op has is the user's choice, recorded by the frontend: an operator or a
``math.*`` call the user wrote carries ``PYTHON_SPELLING`` and is printed as written (its
exception is the user's own). Everything else, the ``np.*`` calls the user wrote and all the
derivative code srcgrad adds, has NumPy's semantics. When such an op is printed with a
Python spelling that may raise, the statement is guarded; the ``try`` costs nothing on
Python 3.11+ unless it raises, and the fallback computes NumPy's value, converted back
to the Python type the fast spelling gives::

    try:
        dx = 1.0 / _t1
    except (ArithmeticError, ValueError):
        dx = float(np.divide(1.0, _t1))

A power is printed ``math.pow(x, y)`` (it raises where ``**`` would go complex), as is
the user's own ``math.pow``. The user's ``y ** 2`` of a Python float is printed
``y ** 2.0``: CPython converts the int exponent to that double before calling the same
``pow`` (the same value and the same ``OverflowError``, checked bit for bit over millions
of floats), and the float exponent skips about 20 ns of the conversion's path per power
(a quarter of a step of a loop such as ``y = x - 0.3 * y ** 2``). It is not ``y * y``:
glibc's ``pow`` is not correctly rounded, and ``y * y`` differs from ``y ** 2`` in the last
bit for about one float in forty.

A tangent's ``np.sign`` of a Python float (``abs``'s derivative) is printed as the
comparisons giving its number, as a Python float: ``np.sign`` would cost a NumPy call and
turn the tangent of a scalar loop into a NumPy scalar for every later operation::

    (1.0 if y > 0.0 else -1.0 if y < 0.0 else 0.0 if y == 0.0 else y)

(``number_sign(e)`` when its argument is an expression, so it is computed once).

A tangent's ``a * u ** -0.5`` next to the user's root ``y = u ** 0.5`` (a ``root_quotient``
op, see ``passes/root_tangents.py``) is a statement that divides by the root where it is a
positive float and keeps NumPy's power elsewhere (``u`` zero, negative or nan)::

    if _t1 > 0.0:
        dy = (dy + 1.0) * 0.5 / y
    else:
        dy = (dy + 1.0) * 0.5 * float(np.power(_t1, -0.5))
"""

from __future__ import annotations

from typing import Any

import gast
import numpy as np

from ..ir.core import NUMBER_SIGN, PYTHON_SPELLING, Op, Value, const_value
from ..spelling import has_python_spelling, uses_math_spelling
from ..support import as_python, number_sign
from .syntax import LOAD, dotted, load

# Ops printed as statements of two branches (never nested into an expression, though
# they may read nested ones): a tangent's ``root_quotient`` (see :func:`root_quotient`)
STATEMENT_OPS = frozenset({"root_quotient"})
# Operators that may raise on Python numbers where the NumPy ufunc returns inf/nan.
RAISING_OPERATORS = ("divide", "power", "floor_divide", "remainder")
_PYTHON_TYPES = {"float": "float", "int": "int", "bool": "bool"}


def _python_inputs(op: Op) -> bool:
    rule = op.attrs.get("rule")
    if rule is None:
        return False
    values = [op.args.get(k) for k in rule.inputs]
    return all(isinstance(v, Value) and v.type is not None and v.type.is_python_number
               for v in values if v is not None)


def numpy_semantics_on_python_numbers(op: Op) -> bool:
    """``op`` keeps NumPy's semantics and its inputs are Python numbers."""
    return not has_python_spelling(op.attrs) and _python_inputs(op)


def power_as_math_pow(op: Op) -> bool:
    """Print this power as ``math.pow``: the user's ``math.pow``, or NumPy semantics on
    Python numbers, one a float (``math.pow`` of two ints would turn ``2 ** 3`` into
    ``8.0``)."""
    if op.prim != "power":
        return False
    if op.attrs.get(PYTHON_SPELLING) == "math":
        return _python_inputs(op)
    if not numpy_semantics_on_python_numbers(op):
        return False
    return any(isinstance(v, Value) and v.type is not None and v.type.kind == "float"
               for v in op.args.values())


def float_exponent(op: Op) -> float | None:
    """The exponent to print as a float literal in ``x ** n``: an int literal ``n`` (exact
    as a double) of a power whose base is a Python float; None otherwise (an int base
    keeps an int power, a NumPy base its own ``**``)."""
    if op.prim != "power":
        return None
    x, y = op.args.get("x"), op.args.get("y")
    if not isinstance(x, Value) or x.type is None or x.type.kind != "float" \
            or not isinstance(y, Value):
        return None
    ok, n = const_value(y)
    return float(n) if ok and type(n) is int and abs(n) <= 2 ** 53 else None


def needs_guard(op: Op) -> bool:
    """The fast spelling printed for ``op`` may raise where NumPy would not."""
    rule = op.attrs.get("rule")
    if rule is None or has_python_spelling(op.attrs):
        return False
    if op.prim in RAISING_OPERATORS:
        # an operator on a NumPy array or scalar is NumPy's; on anything else (a Python
        # number, or a value of unknown type such as a tangent) it may be Python's
        return not any(isinstance(v, Value) and v.type is not None
                       and v.type.kind in ("array", "scalar") for v in op.args.values())
    return uses_math_spelling(rule, op.args) is not None


def guard(assign: Any, target: str, numpy_call: Any, op: Op, refs: Any) -> Any:
    """``try: <assign> except (ArithmeticError, ValueError): target = T(numpy_call)``
    (``T``: the Python type of the result; ``as_python`` when that is known only at run
    time, for an operand of unknown type)."""
    kind = op.out.type.kind if op.out.type is not None else None
    convert = _PYTHON_TYPES.get(kind or "")
    if convert is not None:
        value = gast.Call(func=load(convert), args=[numpy_call], keywords=[])
    elif op.prim in RAISING_OPERATORS:
        value = gast.Call(func=dotted(refs.ref(as_python)),
                          args=[numpy_call, *numpy_call.args], keywords=[])
    else:
        value = numpy_call
    fallback = gast.Assign(targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None,
                                              type_comment=None)],
                           value=value, type_comment=None)
    errors = gast.Tuple(elts=[load("ArithmeticError"), load("ValueError")], ctx=LOAD)
    handler = gast.ExceptHandler(type=errors, name=None, body=[fallback])
    return gast.Try(body=[assign], handlers=[handler], orelse=[], finalbody=[])



def root_quotient(target: Any, op: Op, expr: Any, refs: Any) -> Any:
    """The statement assigning a ``root_quotient`` op (``x * base ** (c - 1)`` with the
    user's ``root = base ** c``) to ``target`` (``expr`` prints an operand): if ``base >
    0.0``, ``x / root`` for c == 0.5, else ``x * root / base``; otherwise ``x *
    float(np.power(base, c - 1))``."""
    def assign(value: Any) -> Any:
        return gast.Assign(targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None,
                                              type_comment=None)],
                           value=value, type_comment=None)

    c = op.attrs["exponent"]
    x, root, base = (expr(op.args[k]) for k in ("x", "root", "base"))
    one = const_value(op.args["x"]) == (True, 1.0)  # (a lone power: 1.0 / y, or y / u)
    test = gast.Compare(left=base, ops=[gast.Gt()], comparators=[gast.Constant(0.0, None)])
    if c == 0.5:
        fast = gast.BinOp(left=x, op=gast.Div(), right=root)
    else:
        top = root if one else gast.BinOp(left=x, op=gast.Mult(), right=root)
        fast = gast.BinOp(left=top, op=gast.Div(), right=expr(op.args["base"]))
    power: Any = gast.Call(func=dotted(refs.ref(np.power)),
                           args=[expr(op.args["base"]), _number(c - 1.0)], keywords=[])
    power = gast.Call(func=load("float"), args=[power], keywords=[])
    slow = power if one else gast.BinOp(left=expr(op.args["x"]), op=gast.Mult(), right=power)
    return gast.If(test=test, body=[assign(fast)], orelse=[assign(slow)])


def _number(c: float) -> Any:
    if c < 0:
        return gast.UnaryOp(op=gast.USub(), operand=gast.Constant(-c, None))
    return gast.Constant(c, None)


def sign_of_a_float(op: Op, arg: Any, refs: Any) -> Any:
    """A tangent's ``np.sign(x)`` of a Python float ``x`` (printed as ``arg``) written with
    Python's comparisons, or None for any other op."""
    if op.prim != "sign" or not op.attrs.get(NUMBER_SIGN):
        return None
    if not isinstance(arg, gast.Name):
        return gast.Call(func=dotted(refs.ref(number_sign)), args=[arg], keywords=[])

    def compare(op_: Any, then: float, other: Any) -> Any:
        test = gast.Compare(left=arg, ops=[op_], comparators=[gast.Constant(0.0, None)])
        return gast.IfExp(test=test, body=gast.Constant(then, None), orelse=other)

    return compare(gast.Gt(), 1.0, compare(gast.Lt(), -1.0, compare(gast.Eq(), 0.0, arg)))
