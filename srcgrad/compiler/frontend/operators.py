"""Lowering operators: arithmetic, bitwise, unary, comparisons and ``and``/``or``.

The operator half of the expression lowering (:class:`.expressions.ExpressionsMixin`
derives from :class:`OperatorsMixin`). On :class:`~..symbolic.Sym` operands an operator
records IR through the tracer with Python's semantics on floats (``//`` and ``%`` as NumPy's
``floor_divide``/``remainder``, ``&``/``|``/``^`` as the bitwise ufuncs); on plain Python
values it is simply computed. ``a and b`` / ``a or b`` known only at run time become an
``if`` op (:mod:`.branches`).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import gast
import numpy as np

from ..ir import types as T
from ..spelling import python_spelling
from ..symbolic import Sym, as_array, is_symbolic, python_not
from . import branches, calls, multicalls
from .context import Context
from .identity import is_identity
from .policy import POLICY
from .syntax_names import operator_spelling

if TYPE_CHECKING:
    from .lower import Lowerer

_UNARY = {gast.USub: "-", gast.UAdd: "+", gast.Invert: "~"}

BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    # forms: & | ^ (masks combined: (x > 0) & (x < 1)); NumPy's bitwise ufuncs, which are
    # the logical ones on booleans and keep integer semantics on ints
    gast.BitAnd: operator.and_, gast.BitOr: operator.or_, gast.BitXor: operator.xor,
}
_BITWISE = {operator.and_: "bitwise_and", operator.or_: "bitwise_or",
            operator.xor: "bitwise_xor"}
_SYMBOLS = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.pow: "**", operator.matmul: "@", operator.floordiv: "//", operator.mod: "%",
    operator.and_: "&", operator.or_: "|", operator.xor: "^",
}
CMPOPS = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge,
    gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
    gast.IsNot: operator.is_not, gast.In: lambda a, b: a in b,
    gast.NotIn: lambda a, b: a not in b,
}


class OperatorsMixin:
    """The operator part of :class:`.expressions.ExpressionsMixin`."""

    ctx: Context

    @property
    def lowerer(self) -> Lowerer:
        """This object as the :class:`.lower.Lowerer` it is a part of: what the helper
        modules take (a mixin cannot name its subclass as its own type)."""
        return self  # type: ignore[return-value]

    def expr_BinOp(self, node: Any) -> Any:
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, f"the operator {operator_spelling(node.op)} is not supported in a "
                           "differentiated function.",
                           "Do integer bit shifts outside the differentiated function and "
                           "pass the result in.")
        return self.binop(op, self.expr(node.left), self.expr(node.right), node)

    def binop(self, op: Any, a: Any, b: Any, node: Any) -> Any:
        if (a is None and is_symbolic(b)) or (b is None and is_symbolic(a)):
            # Python's own TypeError, at compile time: the symbolic operand would otherwise
            # take None as a constant and fail only in the emitted code
            raise self.err(node, f"unsupported operand types for {_SYMBOLS.get(op, op)}: "
                                 "a value and None (an argument or variable that is None "
                                 "in this call).",
                           "Test it first: `if w is not None: ...`.")
        a, b = self.lists_as_arrays(op, a, b, node)
        with python_spelling():  # the user's operator: Python's semantics on floats
            if op in (operator.floordiv, operator.mod) and (is_symbolic(a) or is_symbolic(b)):
                name = "floor_divide" if op is operator.floordiv else "remainder"
                return calls.call_numpy_name(self.lowerer, name, [a, b], {}, node)
            if op in _BITWISE and (is_symbolic(a) or is_symbolic(b)):
                if any(map(_floating, (a, b))):  # Python and NumPy raise TypeError here
                    raise self.err(node, f"unsupported operand types for "
                                   f"{_SYMBOLS[op]}: a floating-point value (bitwise "
                                   "operators take ints and bools).",
                                   "Compare first to get a mask: (x > 0) & (y > 0).")
                # (a run-time value's own & is logical_and, wrong on ints)
                return calls.call_numpy_name(self.lowerer, _BITWISE[op], [a, b], {}, node)
            try:
                return op(a, b)
            except TypeError as e:
                items = next((v for v in (a, b) if multicalls.made_by(self.ctx, v)), None)
                if items is not None:  # np.split(x, 2) + 1.0
                    raise self.err(node, multicalls.not_an_array(
                        self.ctx, items, f"is not an operand of {_SYMBOLS.get(op, op)}"),
                        multicalls.NOT_AN_ARRAY_ADVICE) from None
                raise self.err(node, f"unsupported operand types: {e}",
                               "Python raises this too; make list operands arrays first "
                               "(np.array([...])).") from None

    def lists_as_arrays(self, op: Any, a: Any, b: Any, node: Any) -> tuple[Any, Any]:
        """A list or tuple holding symbolic values that NumPy reads as an array (``V *
        [a, b]`` for an ndarray ``V``): that array, not an object array of symbolic
        values. Whether NumPy does is asked of NumPy, on stand-in floats (``np.float64(2)
        * [a, b]`` raises in Python, as it does in the emitted code). Against a symbolic
        value the tracer converts; against Python values Python's meaning stays."""
        def probe(items: Any, other: Any, left: bool) -> bool:
            stand_in = [0.5] * len(items)
            try:
                got = op(stand_in, other) if left else op(other, stand_in)
            except Exception:
                return False
            return isinstance(got, np.ndarray)

        def convert(v: Any, other: Any, left: bool) -> Any:
            if isinstance(v, (list, tuple)) and is_symbolic(v) and isinstance(
                    other, (np.ndarray, np.generic)) and probe(v, other, left):
                with self.ctx.builder.at_line(self.line_of(node)):
                    return as_array(v)
            return v

        return convert(a, b, True), convert(b, a, False)

    def expr_UnaryOp(self, node: Any) -> Any:
        v = self.expr(node.operand)
        if isinstance(v, (list, tuple)) and not isinstance(node.op, gast.Not):
            raise self.err(node, multicalls.not_an_array(self.ctx, v, "has no unary operator "
                                                         f"{_UNARY.get(type(node.op), '')}"),
                           multicalls.NOT_AN_ARRAY_ADVICE)
        if isinstance(node.op, gast.USub):
            return -v
        if isinstance(node.op, gast.UAdd):
            return v
        if isinstance(node.op, gast.Not):
            if isinstance(v, Sym):
                return python_not(v)
            return not v
        return ~v

    def expr_Compare(self, node: Any) -> Any:
        left = self.expr(node.left)
        result: Any = True
        for op, comp in zip(node.ops, node.comparators):
            right = self.expr(comp)
            if isinstance(op, (gast.Is, gast.IsNot)):
                part = is_identity(self.lowerer, left, right, isinstance(op, gast.IsNot), node)
            elif _python_object(left) or _python_object(right) or (
                    _int_tuple(left) and _int_tuple(right)
                    and (is_symbolic(left) or is_symbolic(right))):
                # a shape (or other Python object known only at run time) compares as
                # Python compares it: `x.shape == (2, 2)` is one bool, never NumPy's
                # elementwise np.equal((2, 2), (2, 2)) -> array([True, True])
                with self.ctx.builder.at_line(self.line_of(node)):
                    part = calls.opaque(self.lowerer, CMPOPS[type(op)], [left, right], {})
                part.value.type = T.BOOL
            else:
                if not isinstance(op, (gast.In, gast.NotIn)):
                    left, right = self.lists_as_arrays(CMPOPS[type(op)], left, right, node)
                part = CMPOPS[type(op)](left, right)
            result = part if result is True else (
                result & part if is_symbolic(result) or is_symbolic(part) else result and part)
            left = right
        return result

    def expr_BoolOp(self, node: Any) -> Any:
        """``a and b`` / ``a or b`` with Python's short circuit: ``b`` is evaluated only when
        needed, at compile time if ``a`` is known, else inside an ``if`` op."""
        is_and = isinstance(node.op, gast.And)
        return self._bool_chain(node, node.values, is_and)

    def _bool_chain(self, node: Any, operands: list[Any], is_and: bool) -> Any:
        first = self.expr(operands[0])
        if len(operands) == 1:
            return first
        if POLICY.should_fold_if(first):  # a tuple's truth is its length, known now
            if bool(first) != is_and:  # `False and ...` / `True or ...`: decided
                return first
            return self._bool_chain(node, operands[1:], is_and)

        def rest() -> Any:
            return self._bool_chain(node, operands[1:], is_and)

        def keep() -> Any:
            return first

        return branches.lower_lazy_if(self.lowerer, first, rest if is_and else keep,
                                      keep if is_and else rest, node,
                                      "this `and`/`or` expression")


def _python_object(v: Any) -> bool:
    """Is ``v`` a run-time value srcgrad types as a Python object, not a number or an
    array (``x.shape``, whose length is known but not its items)?"""
    return isinstance(v, Sym) and v.value.type is not None and v.value.type.kind == "static"


def _int_tuple(v: Any) -> bool:
    """A tuple or list of ints some of which are known only at run time (``(x.shape[0],
    2)``): it compares as Python compares tuples, item by item to one bool."""
    def ints(item: Any) -> bool:
        if isinstance(item, (tuple, list)):
            return all(ints(i) for i in item)
        if isinstance(item, Sym):
            t = item.value.type
            return t is not None and (t.kind in ("int", "bool", "static") or (
                t.kind == "scalar" and t.dtype is not None and np.dtype(t.dtype).kind in "biu"))
        return isinstance(item, (int, np.integer)) or item is None
    return isinstance(v, (tuple, list)) and ints(v)


def _floating(v: Any) -> bool:
    """Is ``v`` known to be a float (or complex) number or array?"""
    if isinstance(v, float):
        return True
    if not isinstance(v, Sym) or v.value.type is None:
        return False
    t = v.value.type
    if t.kind == "float":
        return True
    return t.kind in ("scalar", "array") and t.dtype is not None and \
        np.dtype(t.dtype).kind in "fc"
