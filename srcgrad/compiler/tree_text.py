"""Trees as text: a tree's short description for messages and ``srcgrad show``, and kinds
written as text (``srcgrad show --types``) parsed into trees.

Sits beside :mod:`.structure` (whose :data:`~.structure.Tree` it reads and writes), below
the frontend, the dispatcher and the CLI; it imports only the IR's types.
"""

from __future__ import annotations

import reprlib
from typing import Any

import numpy as np

from .ir import types as T
from .structure import Static, Tree, node_keys

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40
_MAX_PARTS = 8  # a message names a few items of a long container, then counts the rest


def short_repr(value: Any) -> str:
    """A repr for messages that stays short: an array by its shape and dtype, long strings
    and containers cut (a message must never print a whole data set)."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, Static):
        value = value.value
    return _SHORT.repr(value)


def describe_tree(tree: Tree) -> str:
    """A short text of a tree for messages and ``srcgrad show``."""
    kind = tree[0]
    if kind == "leaf":
        return str(tree[1])
    if kind == "static":
        return short_repr(tree[1])
    children = tree[-1]
    keys = node_keys(tree) if kind in ("dict", "dataclass") else None
    parts = [describe_tree(c) for c in children[:_MAX_PARTS]]
    if keys is not None:
        parts = [f"{k}={p}" for k, p in zip(keys, parts)]
    if len(children) > _MAX_PARTS:
        parts.append(f"... {len(children)} items in all")
    name = {"tuple": "tuple", "list": "list", "dict": "dict"}.get(kind) or tree[1].__name__
    return f"{name}({', '.join(parts)})"


# --- kinds written as text (``srcgrad show --types``) ------------------------------------

def split_top(text: str) -> list[str]:
    """Split on the commas outside brackets and parentheses (``float,array[2,float32]`` ->
    2 kinds). Raises ValueError on unbalanced brackets or an empty kind."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if depth < 0:
            raise ValueError(f"unbalanced ']' or ')' in {text!r}")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    if depth != 0:
        raise ValueError(f"unbalanced '[' or '(' in {text!r}")
    if not all(parts):
        raise ValueError(f"empty kind in {text!r}")
    return parts


def parse_kind(text: str) -> Any:
    """``dict(W=array[2],b=float)``, ``list(array[2],float)``, ``tuple(...)`` (nested) as a
    :data:`Tree`; anything else is one leaf kind (:func:`.ir.types.parse`). Raises
    ValueError."""
    s = text.strip()
    for kind in ("dict", "list", "tuple"):
        if s.startswith(kind + "(") and s.endswith(")"):
            inner = s[len(kind) + 1:-1].strip()
            items = split_top(inner) if inner else []
            if kind != "dict":
                return (kind, tuple(_as_tree(parse_kind(i)) for i in items))
            keys, children = [], []
            for item in items:
                key, eq, value = item.partition("=")
                if not eq or not key.strip().isidentifier():
                    raise ValueError(f"bad dict item {item!r} in {text!r}; expected "
                                     "name=kind, e.g. dict(W=array[2],b=float)")
                keys.append(key.strip())
                children.append(_as_tree(parse_kind(value)))
            return ("dict", tuple(keys), tuple(children))
    return T.parse(s)


def _as_tree(kind: Any) -> Tree:
    return kind if isinstance(kind, tuple) else ("leaf", kind)
