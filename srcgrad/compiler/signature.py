"""Abstract argument signatures: the cache key that selects a specialised derivative.

Per argument: Python float / int / bool, NumPy scalar of a dtype, ndarray of an ndim and
dtype, a container's :data:`~.structure.Tree` (keys, types, lengths, leaf kinds), ``None``
(its own kind: ``if w is not None`` is decided at compile time, so a call with ``w=None``
and one with an array need different versions), or "other" (any other array type, which
gets the generic version). Computing the
key is the only per-call work besides a dictionary lookup, so it stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .ir import types as T
from .structure import describe, is_leaf_value, is_structured

_PY = {float: T.FLOAT, int: T.INT, bool: T.BOOL}


def key_of(args: Sequence[Any]) -> tuple[Any, ...]:
    """A hashable key with one entry per argument (cheap: no AType objects)."""
    out = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            out.append((a.ndim, a.dtype.char))
        elif t in _PY or t is complex or a is None or isinstance(a, np.generic):
            out.append(t)
        elif is_structured(a) or _is_static(a):  # structured: its tree (keys, types,
            # lengths, leaf kinds); an object of a user's class by its attributes
            out.append(describe(a))
        else:
            out.append(None)
    return tuple(out)


def types_of(args: Sequence[Any]) -> list[T.AType]:
    """The abstract type of each argument (``ANY`` for other types)."""
    return [describe(a) if is_structured(a) or _is_static(a) else T.of_value(a)
            for a in args]


def _is_static(a: Any) -> bool:
    """A function given as an argument (``f(x, act=np.tanh)``, a defaulted
    ``_r=np.sum``): a compile-time value the version specialises on (its tree is one
    static leaf, guarded by identity, or for a plain function by the same code and closure:
    a new lambda per call, :mod:`.closures`), so a call of it lowers to the function's rule
    or body rather than to an opaque run-time value."""
    return callable(a) and not is_leaf_value(a) and not isinstance(a, type)


def parse_types(text: Sequence[str]) -> list[T.AType]:
    return [T.parse(t) for t in text]
