"""Lowering expressions: each evaluates to a compile-time object or a symbolic value.

Operators on :class:`~..symbolic.Sym` values record IR through the tracer; on plain
Python values they are simply computed (``2 * 3`` is ``6`` at compile time). Calls go
to :mod:`.calls`, attributes of symbolic arrays to :mod:`.methods`, and conditions known
only at run time (``a if c else b``, ``and``/``or``) to :mod:`.branches`.
"""

from __future__ import annotations

import operator
import types
from typing import TYPE_CHECKING, Any

import gast
import numpy as np

from ..ir.types import AType
from ..symbolic import (
    Sym,
    as_array,
    is_symbolic,
    python_not,
    python_spelling,
    record_rule,
    to_value,
)
from . import branches, calls, captured, comprehensions, index_tricks, multicalls, unbound
from .context import Context, LocalFunction
from .identity import is_identity
from .policy import POLICY
from .resolve import MISSING, Scope
from .source import Parsed
from .syntax_names import describe, operator_spelling
from .unbound import MaybeUnbound, OnSomePathsOnly

_UNARY = {gast.USub: "-", gast.UAdd: "+", gast.Invert: "~"}

if TYPE_CHECKING:
    from .lower import Lowerer

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


class ExpressionsMixin:
    """The expression half of :class:`.lower.Lowerer`."""

    env: dict[str, Any]
    enclosing: list[dict[str, Any]]
    ctx: Context
    scope: Scope
    parsed: Parsed

    @property
    def lowerer(self) -> Lowerer:
        """This object as the :class:`.lower.Lowerer` it is a part of: what the helper
        modules take (a mixin cannot name its subclass as its own type)."""
        return self  # type: ignore[return-value]

    def expr(self, node: Any) -> Any:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.err(node, f"the {describe(node)} is not supported in a differentiated "
                           "function.",
                           "Rewrite it with plain assignments, operators and NumPy calls.")
        return method(node)

    def expr_Constant(self, node: Any) -> Any:
        return node.value

    def expr_Name(self, node: Any) -> Any:
        return self.load(node.id, node)

    def load(self, name: str, node: Any) -> Any:
        for env in (self.env, *self.enclosing):
            if name in env:
                held = env[name]
                if isinstance(held, MaybeUnbound):
                    value = unbound.read(self.lowerer, held, name, node)
                    if env is self.env:  # checked: bound from here on in this block
                        env[name] = value
                    return value
                if isinstance(held, OnSomePathsOnly):
                    raise self.err(node, f"`{name}` is assigned on some paths only (of an "
                                   "`if` on a run-time condition or a loop whose trip count "
                                   f"is known only at run time) and holds {held.what}, which "
                                   "cannot be chosen at run time.",
                                   f"Assign `{name}` before the if or loop.")
                return held
        value = self.scope.lookup(name, self.ctx.deps)
        if value is MISSING:
            raise self.err(node, f"name `{name}` is not defined.",
                           "Define or import it (at module level or in the function) before "
                           "the derived function is first called.")
        return captured.free_name(self.lowerer, name, value, node)

    def expr_Attribute(self, node: Any) -> Any:
        obj = self.expr(node.value)
        if is_symbolic(obj):
            return calls.attribute(self.lowerer, obj, node.attr, node)
        if isinstance(obj, types.ModuleType):  # another module's global (`config.DATA`)
            return captured.module_attribute(self.lowerer, obj, node.attr, node)
        if isinstance(obj, captured.CapturedObject):  # `model.W`: read when it runs
            return obj.attribute(self.lowerer, node.attr, node)
        try:
            return getattr(obj, node.attr)
        except AttributeError:
            raise self.err(node, f"{type(obj).__name__} has no attribute `{node.attr}`.") from None

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

    def expr_IfExp(self, node: Any) -> Any:
        test = self.expr(node.test)
        if not POLICY.should_fold_if(test):
            return branches.lower_ifexp(self.lowerer, node, test)
        return self.expr(node.body if test else node.orelse)

    def expr_Tuple(self, node: Any) -> Any:
        return tuple(self.elements(node))

    def expr_List(self, node: Any) -> Any:
        return list(self.elements(node))

    def elements(self, node: Any) -> list[Any]:
        out: list[Any] = []
        for e in node.elts:
            if isinstance(e, gast.Starred):
                v = self.expr(e.value)
                if is_symbolic(v) and not isinstance(v, (tuple, list)):
                    raise self.err(e, "unpacking (*x) an array is not supported.")
                out.extend(v)
            else:
                out.append(self.expr(e))
        return out

    def expr_Dict(self, node: Any) -> Any:
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:  # {**params, "W": W}: a compile-time dict's items
                items = self.expr(v)
                if not isinstance(items, dict):
                    raise self.err(node, "`**` in a dict display needs a dict known while "
                                   "compiling.", "Unpack a dict argument or a local dict.")
                out.update(items)
            else:
                out[self.expr(k)] = self.expr(v)
        return out

    def expr_Slice(self, node: Any) -> Any:
        parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def expr_Subscript(self, node: Any) -> Any:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(base, np.ndarray) and is_symbolic(index):
            # a compile-time array (a module global) indexed at run time: an IR constant
            with self.ctx.builder.at_line(self.line_of(node)):
                base = Sym(to_value(base))
        if isinstance(base, Sym) and isinstance(index, str):
            # an array has no str keys: this is a dict (or record) whose structure this
            # version was not compiled for (the generic version of `srcgrad show`)
            name = node.value.id if isinstance(node.value, gast.Name) else "x"
            raise self.err(node, f"`{name}[{index!r}]` reads a key of a value srcgrad knows "
                           "only as an array here.", "Give its structure: call the derived "
                           "function with the dict, or srcgrad show --types "
                           "'dict(W=array[2],...)'.")
        if index_tricks.is_concatenator(base) and is_symbolic(index):
            return index_tricks.lower(self.lowerer, base, index, node)  # np.r_[x, 0:3]
        if isinstance(base, Sym):
            out = record_rule(calls.rule("getitem"), [base], {"index": index})
            if _may_be_view(index, out.value.type):
                self.ctx.note_view(out.value, base.value)
            return out
        if is_symbolic(index):
            what = "a Python list or tuple" if isinstance(base, (list, tuple)) else \
                f"a {type(base).__name__}"
            raise self.err(node, f"indexing {what} with a value known only at run time is not "
                           "supported.", "Use np.stack(...) or np.asarray(...) and index the "
                           "array.")
        try:
            return base[index]
        except (IndexError, KeyError, TypeError) as e:
            raise self.err(node, f"bad subscript: {e}") from None

    def expr_Call(self, node: Any) -> Any:
        func = self.expr(node.func)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, gast.Starred):
                v = self.expr(a.value)
                if isinstance(v, Sym):
                    raise self.err(a, "unpacking (*x) an array in a call is not supported.")
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs: dict[str, Any] = {}
        for k in node.keywords:
            if k.arg is None:
                v = self.expr(k.value)
                if not isinstance(v, dict):
                    raise self.err(node, "**kwargs of a value known only at run time.")
                kwargs.update(v)
            else:
                kwargs[k.arg] = self.expr(k.value)
        return calls.call(self.lowerer, func, args, kwargs, node)

    def expr_ListComp(self, node: Any) -> Any:
        return comprehensions.lower_comprehension(self.lowerer, node)

    expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node: Any) -> Any:
        return comprehensions.lower_keyed_comprehension(self.lowerer, node)

    expr_SetComp = expr_DictComp

    def expr_Set(self, node: Any) -> Any:
        items = [self.expr(e) for e in node.elts]
        if any(is_symbolic(i) for i in items):  # a set hashes its members while compiling
            raise self.err(node, "a set display {a, b} of values known only at run time is "
                           "not supported in a differentiated function.",
                           "Use a list or a tuple, or np.unique(np.array([...])) for "
                           "distinct values.")
        return set(items)

    def expr_Lambda(self, node: Any) -> Any:
        defaults = [self.expr(d) for d in node.args.defaults]
        return LocalFunction(node, self.parsed, self.scope, [self.env, *self.enclosing],
                             defaults, "<lambda>", self.kw_defaults(node.args))

    def kw_defaults(self, args: Any) -> dict[str, Any]:
        """The defaults of a nested def's or lambda's keyword-only parameters."""
        return {p.id: self.expr(d) for p, d in zip(args.kwonlyargs, args.kw_defaults)
                if d is not None}

    def expr_JoinedStr(self, node: Any) -> Any:
        parts = []
        for v in node.values:
            if isinstance(v, gast.FormattedValue):
                value = self.expr(v.value)
                if is_symbolic(value):
                    raise self.err(node, "an f-string of a value known only at run time is not "
                                   "supported.", "Pass the value to print() directly.")
                parts.append(format(value))
            else:
                parts.append(self.expr(v))
        return "".join(parts)

    def expr_Yield(self, node: Any) -> Any:
        raise self.err(node, "`yield` is not supported in a differentiated function.",
                       "Return the values (a tuple or list) instead of yielding them.")

    expr_YieldFrom = expr_Yield

    def expr_NamedExpr(self, node: Any) -> Any:
        raise self.err(node, "the walrus operator `:=` is not supported.",
                       "Assign in a separate statement.")



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


def _may_be_view(index: Any, result: AType | None) -> bool:
    """Whether ``base[index]`` may share ``base``'s memory (the aliasing rule's question).

    A full integer index (as many ints as dimensions) gives a NumPy scalar, a fresh value
    that ``c *= 2`` merely rebinds; an integer-array index (advanced indexing) gives a copy.
    Ints, slices, ``None`` and ``...`` otherwise give a view; so does an index of unknown
    type, for safety.
    """
    if result is not None and (result.kind == "scalar" or result.is_python_number):
        return False
    parts = index if isinstance(index, tuple) else (index,)
    for p in parts:
        if isinstance(p, Sym):
            if p.value.type is not None and p.value.type.kind == "array":
                return False
        elif not (p is None or p is Ellipsis or isinstance(p, (int, slice))):
            return False
    return True
