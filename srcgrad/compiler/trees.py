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
    is_leaf_value,
    is_namedtuple,
    is_plain_object,
    is_structured,
    make_dataclass,
)
from .tree_text import describe_tree

__all__ = ["tree_leaves", "tree_map"]


def tree_leaves(tree: Any) -> list[Any]:
    """The float, NumPy-scalar and array leaves of ``tree``, in order.

    Dict keys in insertion order, an object's attributes in its ``__dict__``'s order;
    ints, bools, strings and None are static and left out (as the compiler treats them).

    Args:
        tree: a value or a nesting of dicts, lists, tuples, namedtuples, dataclasses and
            objects.

    Returns:
        list: the leaves.

    Example::

        import numpy as np
        import srcgrad as sg

        params = {"W": np.ones((2, 2)), "b": 0.5, "name": "layer", "n": 3}
        print(sg.tree_leaves(params))             # [array(...), 0.5]
    """
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
    """``fn`` applied to the leaves of ``tree`` (and the matching leaves of ``rest``).

    Each container is rebuilt as its own type; static leaves (ints, strings, None) are
    copied from ``tree``. Useful for a gradient step on a structure of parameters.

    Args:
        fn: called as ``fn(leaf, *matching_leaves)``.
        tree: a structure of containers (see ``tree_leaves``).
        *rest: structures of the same shape as ``tree``.

    Returns:
        A structure like ``tree`` holding ``fn``'s results.

    Example::

        import numpy as np
        import srcgrad as sg

        def loss(p):
            return np.sum(p["W"] ** 2) + p["b"] ** 2

        params = {"W": np.ones(2), "b": 1.0}
        grads = sg.grad(loss)(params)
        params = sg.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        print(params)                             # {'W': array([0.8, 0.8]), 'b': 0.8}
    """
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
