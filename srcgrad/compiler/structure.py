"""Structured arguments: containers flattened at the boundary (DESIGN.md principle 12).

A container argument (``tuple``, ``list``, ``dict``, a ``collections.namedtuple``, a
``dataclasses.dataclass`` instance, nested to any depth) becomes its leaves plus a static
:data:`Tree` that describes it: container types, keys, lengths, and per leaf its abstract
type (:class:`~.ir.types.AType`) or, for a static leaf (str, None, anything that is not a
number or an array), the value itself. The tree is hashable, so it is part of the cache key
and of the dispatcher's guard; the frontend binds the parameter to the container rebuilt
around the IR parameters of its leaves, so the IR only ever sees leaves, and gradients are
rebuilt from the same tree with the argument's own container types.

    {"W": array(2x3), "act": "tanh"}  ->  ("dict", ("W", "act"), (("leaf", array[2,float64]),
                                                                 ("static", "tanh")))

The same walk serves ``sg.tree_leaves`` and ``sg.tree_map`` (:mod:`.trees`); a tree as text
is :mod:`.tree_text`, a structured result :mod:`.result_trees`. This module sits below the
frontend and the dispatcher (it imports only the IR's types).
"""

from __future__ import annotations

import dataclasses
import re
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError

from .closures import function_key, same_function
from .ir import types as T
from .ir.core import exact_key

_NOT_USERS = frozenset(sys.stdlib_module_names) | {"numpy", "srcgrad", "builtins"}

# ("leaf", AType) | ("static", value) | ("tuple"|"list", children)
# | ("dict", keys, children) | ("namedtuple", cls, children)
# | ("dataclass", cls, field names, children)
Tree = tuple[Any, ...]
_LEAF_TYPES = (float, int, bool, np.ndarray, np.generic)


def is_plain_object(value: Any) -> bool:
    """An instance of a user's class (holding data in its attributes): not a number, array
    (of any library), container, module, class, function, standard-library or NumPy
    object."""
    t = type(value)
    module = getattr(t, "__module__", "") or ""
    if module.partition(".")[0] in _NOT_USERS:
        return False
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType,
                          types.BuiltinFunctionType, tuple, list, dict, np.generic)):
        return False
    if hasattr(value, "__array_function__") or hasattr(value, "__array__"):
        return False
    return hasattr(value, "__dict__") and not hasattr(t, "__slots__")


def is_user_dataclass(value: Any) -> bool:
    """An instance of a dataclass the user defined (not one of srcgrad's own, which the
    frontend uses for its compile-time objects, nor a library's)."""
    return is_dataclass_instance(value) and (
        getattr(type(value), "__module__", "") or "").partition(".")[0] not in _NOT_USERS


def is_structured(value: Any) -> bool:
    """Flattened at the boundary: a container, or an object of a user's class (its
    attributes; a callable one is called through its class's ``__call__``)."""
    return is_container(value) or is_plain_object(value)


def is_container(value: Any) -> bool:
    t = type(value)
    return t in (tuple, list, dict) or is_namedtuple(t) or is_dataclass_instance(value)


def is_namedtuple(t: type) -> bool:
    return issubclass(t, tuple) and hasattr(t, "_fields")


def is_dataclass_instance(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _fields(value: Any) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(value))


def attribute_names(value: Any) -> tuple[str, ...]:
    """A dataclass instance's fields; an object of a user's class: its attributes."""
    return _fields(value) if is_dataclass_instance(value) else tuple(vars(value))


def children(value: Any) -> list[tuple[Any, Any]]:
    """(key, child) pairs of a container: index, dict key, field or attribute name."""
    t = type(value)
    if t is dict:
        return list(value.items())
    if is_dataclass_instance(value):
        return [(n, getattr(value, n)) for n in _fields(value)]
    if is_plain_object(value):
        return list(vars(value).items())
    return list(enumerate(value))


def is_leaf_value(value: Any) -> bool:
    """A number or an array (of NumPy or another library): a leaf with a run-time value."""
    return isinstance(value, _LEAF_TYPES) or (
        hasattr(value, "__array_function__") and hasattr(value, "shape"))


def describe(value: Any, leaf_kind: Callable[[Any], T.AType | None] | None = None,
             _within: tuple[int, ...] = ()) -> Tree:
    """The tree of ``value`` (a leaf gives a one-leaf tree); ``leaf_kind`` may name the
    kind of a leaf this module does not know (the compiler's symbolic values)."""
    if leaf_kind is not None:
        kind = leaf_kind(value)
        if kind is not None:
            return ("leaf", kind)
    t = type(value)
    structured = is_container(value) or is_plain_object(value)
    if structured and id(value) in _within:  # a.parent.child is a: no finite tree
        raise SrcGradError(
            f"a structured argument refers back to itself (a {t.__name__} inside itself): "
            "srcgrad flattens arguments into a finite tree of leaves.",
            advice="Pass the parameters (a dict or dataclass of arrays) without the "
            "back-reference.")
    within = (*_within, id(value)) if structured else _within

    def sub(v: Any) -> Tree:
        return describe(v, leaf_kind, within)
    if t is tuple or t is list:
        return (t.__name__, tuple(sub(v) for v in value))
    if t is dict:
        bad = [k for k in value if not _literal(k)]
        if bad:
            raise SrcGradError(
                f"a dict argument with a key of type {type(bad[0]).__name__} ({bad[0]!r}): "
                "srcgrad reads structured arguments by keys it can write as literals.",
                advice="Use str, int, float, bool or None keys (or tuples of them).")
        return ("dict", tuple(value), tuple(sub(v) for v in value.values()))
    if is_namedtuple(t):
        return ("namedtuple", t, tuple(sub(v) for v in value))
    if is_dataclass_instance(value) or is_plain_object(value):
        # a dataclass's fields; an object of a user's class (`self`): its attributes
        names = attribute_names(value)
        return ("dataclass", t, names, tuple(sub(getattr(value, n)) for n in names))
    if is_leaf_value(value):
        kind = T.of_value(value)
        return ("leaf", kind if kind.kind != "static" else T.ANY)
    return ("static", Static(value))


def _literal(key: Any) -> bool:
    """A key whose ``repr`` is Python text that evaluates back to it."""
    if type(key) is tuple:
        return all(_literal(k) for k in key)
    return key is None or type(key) in (str, int, bool) or (
        type(key) is float and key == key and key not in (float("inf"), float("-inf")))


class Static:
    """A static leaf in a tree: equal by value when hashable, else by identity; a plain
    function also equals a new one of the same code and closure (:mod:`.closures`) unless
    ``exact`` (a version compiled for it may have decided on its identity)."""

    __slots__ = ("value", "_key", "exact")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.exact = False
        if type(value) is types.FunctionType:
            self._key: Any = function_key(value)
            return
        try:
            hash(value)
            self._key = exact_key(value)  # (-0.0 is not 0.0 for a compiled version)
        except TypeError:
            self._key = ("id", id(value))

    def __eq__(self, other: object) -> bool:
        if not (isinstance(other, Static) and self._key == other._key):
            return False
        if self._key[0] == "function" and not (self.exact or other.exact):
            return same_function(other.value, self.value)
        return self._key[0] not in ("id", "function") or self.value is other.value

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return repr(self.value)


NONE_LEAF = Static(None)  # a static None leaf (a gradient with nothing to say)


def static_leaves(tree: Tree) -> list[Static]:
    """The static leaves of ``tree``, in order."""
    return [t[1] for _, t in leaf_paths(tree) if t[0] == "static"]


def node_children(tree: Tree) -> tuple[Tree, ...]:
    return tree[-1] if tree[0] not in ("leaf", "static") else ()


def node_keys(tree: Tree) -> list[Any]:
    """The key of each child: index, dict key or field name."""
    kind = tree[0]
    if kind == "dict":
        return list(tree[1])
    if kind == "dataclass":
        return list(tree[2])
    return list(range(len(node_children(tree))))


def leaf_paths(tree: Tree) -> list[tuple[tuple[Any, ...], Tree]]:
    """(path, leaf or static tree) for every leaf in order; a path step is a key."""
    out: list[tuple[tuple[Any, ...], Tree]] = []

    def walk(t: Tree, path: tuple[Any, ...]) -> None:
        if t[0] in ("leaf", "static"):
            out.append((path, t))
            return
        for key, child in zip(node_keys(t), node_children(t)):
            walk(child, (*path, key))
    walk(tree, ())
    return out


def leaf_name(name: str, path: tuple[Any, ...]) -> str:
    """``params_W1`` for ``params["W1"]``: the user's name, then the keys (identifier-safe):
    the name of the leaf's parameter in the IR and the emitted code."""
    return "_".join([name, *(re.sub(r"\W", "_", str(k)) for k in path)])


def leaves_of(tree: Tree, value: Any, static: bool = False) -> list[Any]:
    """The run-time leaves of ``value``, which has structure ``tree``, in order; with
    ``static``, a tangent's: read by the same keys, whatever its leaves' kinds."""
    out: list[Any] = []

    def walk(t: Tree, v: Any) -> None:
        kind = t[0]
        if kind == "leaf":
            out.append(v)
        elif kind == "dataclass":
            for n, c in zip(t[2], t[3]):
                walk(c, getattr(v, n))
        elif kind != "static":
            for key, c in zip(node_keys(t), t[-1]):
                walk(c, v[key])
    walk(tree, value)
    return out


def leaf_types(tree: Tree) -> list[T.AType]:
    """The abstract type of every run-time leaf (static leaves left out), in order."""
    return [t[1] for _, t in leaf_paths(tree) if t[0] == "leaf"]


def build(tree: Tree, leaves: Iterator[Any], static: Callable[[Any], Any] = lambda v: v) -> Any:
    """The container ``tree`` describes, with run-time leaves taken from ``leaves`` in order
    and each static leaf ``static(value)``."""
    kind = tree[0]
    if kind == "leaf":
        return next(leaves)
    if kind == "static":
        return static(tree[1].value)
    items = [build(c, leaves, static) for c in tree[-1]]
    if kind == "tuple":
        return tuple(items)
    if kind == "list":
        return items
    if kind == "dict":
        return dict(zip(tree[1], items))
    if kind == "namedtuple":
        return tree[1](*items)
    return make_dataclass(tree[1], tree[2], items)


def make_dataclass(cls: type, names: tuple[str, ...], values: list[Any]) -> Any:
    """An instance of ``cls`` with these field values, without running ``__init__`` (which
    may validate or compute; a gradient is not a constructed model)."""
    obj = object.__new__(cls)
    for n, v in zip(names, values):
        object.__setattr__(obj, n, v)
    return obj
