"""Backend: one gast statement or expression -> its Python source line (astor's text).

The emitter (:mod:`.emit`, :mod:`.control`) builds gast nodes and prints each statement
with :func:`source`: the common statements by :mod:`.astor_text`, which writes astor's
text from the gast nodes directly, any other through astor. astor prints Python's own
``ast`` nodes, so each node of those is first converted; gast's converter
(``gast.gast_to_ast``) is a generic ``NodeTransformer`` that looks up a visitor per node
and tries every location attribute through a raised ``AttributeError``. :func:`to_ast`
does the same conversion for the node kinds an emitted statement is made of, by a table of
classes, and hands any other node (a ``lambda``, a ``def``, an ``except``) to gast's own
converter::

    to_ast(gast.BinOp(left=load("x"), op=gast.Mult(), right=gast.Constant(3, None)))
        == ast.BinOp(left=ast.Name("x", ast.Load()), op=ast.Mult(),
                     right=ast.Constant(3, None))          # as ast.dump shows both

The result is the node gast's converter makes (its fields and location attributes), so the
printed text is the same; ``tests/compiler/test_printing.py`` compares both on every
statement of a set of emitted functions, and the direct text with astor's.
"""

from __future__ import annotations

import ast
import os
import warnings
from typing import Any

import gast

from .astor_text import Unsupported, statement_text

with warnings.catch_warnings():  # astor reads ast.Num & co. (deprecated since Python 3.12)
    warnings.simplefilter("ignore", DeprecationWarning)
    import astor

# node kinds gast converts field by field into the ``ast`` class of the same name (its
# ``generic_visit``) on every Python srcgrad supports; ``Name`` and ``Assign`` drop the
# fields gast adds (``annotation``, ``type_comment``) and are converted here the same way
_GENERIC = (
    "Expr", "Return", "AugAssign", "Assert", "Raise", "Pass", "Break", "Continue",
    "BinOp", "UnaryOp", "BoolOp", "Compare", "Call", "keyword", "Attribute", "Subscript",
    "Slice", "Starred", "Tuple", "List", "Set", "Dict", "IfExp", "Constant",
    "Load", "Store", "Del",
    "Add", "Sub", "Mult", "MatMult", "Div", "FloorDiv", "Mod", "Pow", "LShift", "RShift",
    "BitOr", "BitXor", "BitAnd", "And", "Or", "UAdd", "USub", "Not", "Invert",
    "Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn",
)
_DROPPED = {"Name": ("id", "ctx"), "Assign": ("targets", "value")}

# gast class -> (ast class, the fields to copy, the location attributes to copy)
_TABLE: dict[type, tuple[type, tuple[str, ...], tuple[str, ...]]] = {}
for _name in (*_GENERIC, *_DROPPED):
    if hasattr(gast, _name) and hasattr(ast, _name):
        _g = getattr(gast, _name)
        _TABLE[_g] = (getattr(ast, _name), _DROPPED.get(_name, _g._fields), _g._attributes)

# SRCGRAD_CHECK_PRINTING=1 (tests/conftest.py sets it): every text written directly is
# compared with astor's, so the whole suite checks :mod:`.astor_text`
CHECK = "SRCGRAD_CHECK_PRINTING"


def checking() -> bool:
    """Whether the environment asks to compare each text with astor's (read per statement,
    so whatever imported srcgrad first, the suite's setting holds)."""
    return os.environ.get(CHECK, "") == "1"

_MISSING = object()
_PLAIN = frozenset({str, int, float, bool, type(None)})  # field values kept as they are


def to_ast(node: Any) -> Any:
    """``gast.gast_to_ast(node)``, faster for the nodes of emitted statements."""
    entry = _TABLE.get(type(node))
    if entry is None:
        if type(node) is list:
            return [to_ast(n) for n in node]
        if isinstance(node, gast.AST):
            return gast.gast_to_ast(node)  # a rarer kind: gast's own conversion
        return node  # a field's plain value (a name, a constant's value, None)
    cls, fields, attributes = entry
    new = cls()
    for f in fields:  # (a field the node lacks stays unset, as with gast)
        value = getattr(node, f, _MISSING)
        if value is not _MISSING:
            setattr(new, f, to_ast(value) if type(value) not in _PLAIN else value)
    for a in attributes:  # (location: as gast copies it, when the node has it)
        value = getattr(node, a, _MISSING)
        if value is not _MISSING:
            setattr(new, a, value)
    return new


def source(node: Any) -> str:
    """The Python text of gast ``node``, one line per statement: astor's, written directly
    for the common statements (:mod:`.astor_text`), else by astor itself."""
    try:
        text = statement_text(node)
    except Unsupported:
        return astor_source(node)
    if checking():  # (the test suite: astor's own text, compared)
        expected = astor_source(node)
        if text != expected:
            raise RuntimeError(f"astor_text wrote {text!r} where astor writes {expected!r}")
    return text


def astor_source(node: Any) -> str:
    """astor's text of gast ``node``, one line per statement."""
    # astor still touches ast.Num & co., deprecated since Python 3.12: not the user's concern
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        # one line per statement: astor's wrapping of long lines would break expressions
        return astor.to_source(to_ast(node), pretty_source="".join).rstrip("\n")
