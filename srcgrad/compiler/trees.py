"""``sg.tree_leaves`` and ``sg.tree_map``: the user's side of structured parameters.

The same containers the compiler flattens at the boundary (:mod:`.structure`): tuple,
list, dict, namedtuple, dataclass and objects of the user's classes, nested; leaves are
floats, NumPy scalars and arrays, while ints, bools, strings and None are static (left out
by ``tree_leaves``, copied from the first tree by ``tree_map``). Typical use, after
``grads = sg.grad(loss)(params, ...)``::

    params = sg.tree_map(lambda p, g: p - lr * g, params, grads)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .structure import (
    children,
    describe,
    describe_tree,
    is_leaf_value,
    is_namedtuple,
    is_plain_object,
    is_structured,
    make_dataclass,
)

__all__ = ["tree_leaves", "tree_map"]


def tree_leaves(tree: Any) -> list[Any]:
    """The float, NumPy-scalar and array leaves of ``tree`` in order (dict keys in
    insertion order, an object's attributes in its ``__dict__``'s order); ints, bools,
    strings and None are static and left out."""
    out: list[Any] = []

    def walk(v: Any) -> None:
        if is_structured(v):
            for _, c in children(v):
                walk(c)
        elif is_leaf_value(v) and type(v) not in (int, bool) and not isinstance(v, np.bool_):
            out.append(v)
    walk(tree)
    return out


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``fn`` applied to the leaves of ``tree`` (and the matching leaves of ``rest``), each
    container rebuilt as its own type; static leaves are copied from ``tree``."""
    if is_structured(tree):
        pairs = children(tree)
        others = []
        for r in rest:
            if type(r) is not type(tree):
                raise TypeError(f"sg.tree_map: a {type(tree).__name__} matched with a "
                                f"{type(r).__name__}.")
            keyed = type(r) is dict or is_plain_object(r)  # matched by key, not position
            theirs = dict(children(r)) if keyed else [c for _, c in children(r)]
            if len(theirs) != len(pairs) or (keyed and theirs.keys() != dict(pairs).keys()):
                raise TypeError("sg.tree_map: the trees have different structures "
                                f"({describe_tree(describe(tree))} and "
                                f"{describe_tree(describe(r))}).")
            others.append(theirs)
        items = []
        for i, (key, child) in enumerate(pairs):
            items.append(tree_map(fn, child, *[o[key] if type(o) is dict else o[i]
                                               for o in others]))  # (o: a dict or list)
        t = type(tree)
        if t is dict:
            return dict(zip(tree, items))
        if t is list:
            return items
        if t is tuple:
            return tuple(items)
        if is_namedtuple(t):
            return t(*items)
        return make_dataclass(t, tuple(k for k, _ in pairs), items)
    if is_leaf_value(tree) and type(tree) not in (int, bool) and not isinstance(tree, np.bool_):
        return fn(tree, *rest)
    return tree
