"""Backend: astor's text for the common emitted statements, printed from gast directly.

:func:`.printing.source` prints every emitted statement. astor needs Python ``ast`` nodes
(a conversion per node) and walks them with a visitor that stores each child's precedence on
the child: about 30 us per statement, half of the emission of a small gradient. This module
writes the same text for the statements the emitter makes most (``=``, augmented ``=``,
``return``, an expression, a ``try`` around such statements) built of names, numbers,
calls, operators, subscripts, slices, tuples and lists, following astor's rules exactly:
its precedence table
(``astor.op_util``), a child's precedence set by its parent (the "highest" one when the
parent sets none, so ``(a + b).T``), parentheses where the child binds less tightly, a
number's spelling (``1e1000`` for inf). Any other node (a string, a ``lambda``...) raises
:class:`Unsupported` and the caller hands the statement to astor::

    x_1 = -(a + b) ** 2 * c[1:, None]          (either way, the same characters)

``tests/compiler/test_printing.py`` compares both on every statement of the golden programs
and on hand-made corner cases (powers of negatives, chained comparisons, one-tuples).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

with warnings.catch_warnings():  # astor reads ast.Num & co. (deprecated since Python 3.12)
    warnings.simplefilter("ignore", DeprecationWarning)
    from astor.op_util import Precedence, op_data

# astor's table: a node or operator class name -> its precedence, and an operator's symbol
_PRECEDENCE: dict[str, int] = {name: p for name, _symbol, p in op_data}
_SYMBOL: dict[str, str] = {name: symbol for name, symbol, _p in op_data}
_HIGHEST = Precedence.highest  # what a child no parent set a precedence on has
_COMMA = Precedence.Comma
_ONE_ARG = Precedence.call_one_arg


class Unsupported(Exception):
    """A node this module does not print: the caller prints the statement with astor."""


def statement_text(node: Any) -> str:
    """astor's text of one statement, or of one expression (printed as astor prints an
    expression alone: with no precedence set, so ``(a + b)``)."""
    kind = type(node).__name__
    if kind == "Assign":
        p = _PRECEDENCE["Assign"]
        targets = "".join(_text(t, p) + " = " for t in node.targets)
        return targets + _text(node.value, p)
    if kind == "AugAssign":
        p = _PRECEDENCE["AugAssign"]
        symbol = _SYMBOL[type(node.op).__name__]
        return f"{_text(node.target, p)} {symbol}= {_text(node.value, p)}"
    if kind == "Return":
        if node.value is None:
            return "return"
        return "return " + _text(node.value, _PRECEDENCE["Return"])
    if kind == "Expr":
        return _text(node.value, _PRECEDENCE["Expr"])
    if kind == "Try":
        return _try(node)
    return _text(node, _HIGHEST)


def _try(node: Any) -> str:
    """``try:`` with its ``except`` clauses (a guarded float division, ``floats.py``),
    each body statement indented by four spaces as astor writes it."""
    if node.orelse or node.finalbody or not node.handlers:
        raise Unsupported("Try")
    lines = ["try:", *_indented(node.body)]
    for handler in node.handlers:
        head = "except"
        if handler.type is not None:
            head += " " + _text(handler.type, _HIGHEST)
        if handler.name is not None:  # (a gast Name)
            head += " as " + _text(handler.name, _HIGHEST)
        lines += [head + ":", *_indented(handler.body)]
    return "\n".join(lines)


def _indented(body: list[Any]) -> list[str]:
    return ["    " + line for statement in body
            for line in statement_text(statement).split("\n")]


def _wrapped(text: str, p: int, pp: int) -> str:
    """astor's ``Delimit``: parentheses unless the node binds as tightly as its parent asks."""
    return text if p >= pp else f"({text})"


def _text(node: Any, pp: int) -> str:
    """``node`` printed where its parent set precedence ``pp``."""
    kind = type(node).__name__
    if kind == "Name":
        return node.id
    if kind == "Constant":
        value = node.value
        if isinstance(value, (int, float, complex)):
            return _wrapped(_number(value), _PRECEDENCE["Constant"], pp)
        if value is Ellipsis:
            return "..."
        if isinstance(value, str) or getattr(node, "kind", None):
            raise Unsupported(kind)  # (astor chooses the quotes by context)
        return repr(value)
    if kind == "Attribute":
        return f"{_text(node.value, _HIGHEST)}.{node.attr}"
    if kind == "Call":
        return _call(node)
    if kind == "BinOp":
        op = type(node.op).__name__
        p = _PRECEDENCE[op]
        if op == "Pow":
            left = _text(node.left, _PRECEDENCE["Pow"] + 1)
            right = _text(node.right, _PRECEDENCE["PowRHS"])
        else:
            left, right = _text(node.left, p), _text(node.right, p + 1)
        return _wrapped(f"{left} {_SYMBOL[op]} {right}", p, pp)
    if kind == "UnaryOp":
        op = type(node.op).__name__
        p, symbol = _PRECEDENCE[op], _SYMBOL[op]
        space = " " if symbol.isalpha() else ""
        return _wrapped(f"{symbol}{space}{_text(node.operand, p)}", p, pp)
    if kind == "BoolOp":
        op = type(node.op).__name__
        p = _PRECEDENCE[op]
        return _wrapped(f" {_SYMBOL[op]} ".join(_text(v, p + 1) for v in node.values), p, pp)
    if kind == "Compare":
        p = _PRECEDENCE[type(node.ops[0]).__name__]
        parts = [_text(node.left, p + 1)]
        for op, right in zip(node.ops, node.comparators):
            parts.append(f" {_SYMBOL[type(op).__name__]} {_text(right, p + 1)}")
        return _wrapped("".join(parts), p, pp)
    if kind == "IfExp":
        p = _PRECEDENCE["IfExp"]
        return _wrapped(f"{_text(node.body, p + 1)} if {_text(node.test, p + 1)} else "
                        f"{_text(node.orelse, p)}", p, pp)
    if kind == "Subscript":
        return f"{_text(node.value, _HIGHEST)}[{_text(node.slice, _PRECEDENCE['Subscript'])}]"
    if kind == "Slice":
        return _slice(node)
    if kind == "Tuple":
        if not node.elts:
            return "()"
        items = ", ".join(_text(e, _COMMA) for e in node.elts)
        return _wrapped(items + ("," if len(node.elts) == 1 else ""), _PRECEDENCE["Tuple"], pp)
    if kind == "List":
        return "[" + ", ".join(_text(e, _COMMA) for e in node.elts) + "]"
    if kind == "Starred":
        return "*" + _text(node.value, _HIGHEST)
    raise Unsupported(kind)


def _call(node: Any) -> str:
    args, keywords = node.args, node.keywords
    p = _COMMA if len(args) + len(keywords) > 1 else _ONE_ARG
    parts = [_text(a, p) for a in args]
    for keyword in keywords:
        name = keyword.arg or ""
        parts.append(f"{name}{'=' if name else '**'}{_text(keyword.value, _COMMA)}")
    return f"{_text(node.func, _HIGHEST)}({', '.join(parts)})"


def _slice(node: Any) -> str:
    p = _PRECEDENCE["Slice"]
    text = ("" if node.lower is None else _text(node.lower, p)) + ":"
    text += "" if node.upper is None else _text(node.upper, p)
    if node.step is not None:
        text += ":"
        if not (type(node.step).__name__ == "Name" and node.step.id == "None"):
            text += _text(node.step, p)
    return text


def _number(value: Any) -> str:
    """astor's ``_handle_numeric_constant``: inf as ``1e1000``, nan as
    ``(1e1000-1e1000)``, complex numbers with their parts."""
    def part(p: Any, imaginary: bool) -> str:
        s = "j" if imaginary else ""
        try:
            if math.isinf(p):
                return ("-1e1000" if p < 0 else "1e1000") + s
            if math.isnan(p):
                return f"(1e1000{s}-1e1000{s})"
        except OverflowError:  # (an int too large for a float)
            pass
        return repr(p) + s

    if not isinstance(value, complex):
        return part(value, False)
    real, imag = part(value.real, False), part(value.imag, True)
    if value.real == 0:
        return imag
    if value.imag == 0:
        return f"({real}+0j)"
    return f"({real}{'' if imag.startswith('-') else '+'}{imag})"
