"""What the user wrote, in the user's words, for the frontend's refusals.

Messages about a construct srcgrad does not lower used to print the gast class of its node
(``ListComp``, ``Starred``, ``LShift``): names of Python's syntax tree, which the user
never wrote. :func:`describe` gives the construct as it is spelled or called in Python's
documentation ("set display {a, b}", "operator <<", "match statement"); a class this table
does not know is split into lower-case words, so no message shows a syntax-tree name.
"""

from __future__ import annotations

import re
from typing import Any

_CONSTRUCTS = {
    "ListComp": "list comprehension", "GeneratorExp": "generator expression",
    "DictComp": "dict comprehension", "SetComp": "set comprehension",
    "Starred": "starred expression (*x)", "JoinedStr": "f-string",
    "FormattedValue": "f-string field", "TemplateStr": "template string",
    "Lambda": "lambda", "Await": "await", "Yield": "yield", "YieldFrom": "yield from",
    "NamedExpr": "walrus operator :=", "Set": "set display {a, b}",
    "Match": "match statement", "TypeAlias": "type statement", "Try": "try",
    "TryStar": "try ... except*", "With": "with", "AsyncWith": "async with",
    "AsyncFor": "async for", "AsyncFunctionDef": "async def", "ClassDef": "class definition",
    "Global": "global", "Nonlocal": "nonlocal", "Delete": "del",
    "Attribute": "attribute (obj.name)", "Subscript": "subscript (x[i])", "Tuple": "tuple",
    "List": "list", "Name": "name", "Call": "call", "Slice": "slice",
    "IfExp": "conditional expression", "BoolOp": "and/or", "Compare": "comparison",
    "Dict": "dict display", "Constant": "constant",
}

_OPERATORS = {
    "Add": "+", "Sub": "-", "Mult": "*", "MatMult": "@", "Div": "/", "FloorDiv": "//",
    "Mod": "%", "Pow": "**", "LShift": "<<", "RShift": ">>", "BitOr": "|", "BitXor": "^",
    "BitAnd": "&", "Invert": "~", "Not": "not", "UAdd": "unary +", "USub": "unary -",
}


def describe(node: Any) -> str:
    """The construct ``node`` (a syntax-tree node or its class) in the user's words."""
    name = node.__name__ if isinstance(node, type) else type(node).__name__
    if name in _CONSTRUCTS:
        return _CONSTRUCTS[name]
    if name in _OPERATORS:
        return f"operator {_OPERATORS[name]}"
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower()


def operator_spelling(node: Any) -> str:
    """The spelling of an operator node (``<<`` for ``LShift``)."""
    name = type(node).__name__
    return _OPERATORS.get(name, describe(node))
