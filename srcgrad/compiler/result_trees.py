"""Structured results: a result holding dicts, namedtuples or dataclasses, returned by the
IR as one flat tuple of its run-time leaves and rebuilt around them after the call.

The frontend describes the result it traced (:func:`result_structure`); the boundary and
the derived functions rebuild it (:func:`rebuild_result`). Built on the trees of
:mod:`.structure`, below the frontend and the dispatcher.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .ir import types as T
from .structure import (
    Static,
    Tree,
    attribute_names,
    build,
    children,
    is_container,
    is_dataclass_instance,
    is_namedtuple,
    is_plain_object,
    node_children,
)


def result_structure(value: Any, is_run_time: Callable[[Any], bool]) -> Tree | None:
    """The tree of a result holding a dict, namedtuple or dataclass, or None when it holds
    only tuples and lists (which the IR returns as they are). Its ``leaf`` nodes are the
    run-time values (``is_run_time``) and numbers, in order: the IR returns them as one flat
    tuple; other leaves (a str, None, an int) are ``static``, kept in the tree."""
    def tree(v: Any) -> Tree:
        if is_container(v) or (is_plain_object(v) and not callable(v)):
            t = describe_shallow(v)
            return (*t[:-1], tuple(tree(c) for _, c in children_of(v)))
        if is_run_time(v) or (isinstance(v, (float, np.floating, np.ndarray))):
            return ("leaf", T.ANY)
        return ("static", Static(v))

    def special(t: Tree) -> bool:
        return t[0] in ("dict", "namedtuple", "dataclass") or any(
            special(c) for c in node_children(t))
    t = tree(value)
    return t if special(t) else None


def describe_shallow(value: Any) -> Tree:
    """The container node of ``value`` with an empty child tuple (filled in by callers)."""
    t = type(value)
    if t is tuple or t is list:
        return (t.__name__, ())
    if t is dict:
        return ("dict", tuple(value), ())
    if is_namedtuple(t):
        return ("namedtuple", t, ())
    names = attribute_names(value)
    return ("dataclass", t, names, ())


def children_of(value: Any) -> list[tuple[Any, Any]]:
    if is_dataclass_instance(value) or is_plain_object(value):
        names = attribute_names(value)
        return [(n, getattr(value, n)) for n in names]
    return children(value)


def rebuild_result(tree: Tree, flat: Any, tangent: bool = False) -> Any:
    """The result's own containers around the tuple of its run-time leaves; static leaves
    are the values in the tree (a tangent's are None). The leaves may come nested in tuples
    (forward mode returns a tuple result's value and tangent nested like the IR's own
    result): a run-time leaf is never a tuple or list, so nesting is flattened first."""
    return build(tree, iter(_flattened(flat)), (lambda v: None) if tangent else (lambda v: v))


def _flattened(items: Any) -> list[Any]:
    if type(items) not in (tuple, list):
        return [items]
    return [leaf for item in items for leaf in _flattened(item)]
