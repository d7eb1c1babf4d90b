"""Abstract argument signatures: the cache key that selects a specialised derivative.

Per argument: Python float / int / bool, NumPy scalar of a dtype, ndarray of an ndim and
dtype (and the earlier array argument of the same shape, if any), a container's
:data:`~.structure.Tree` (keys, types, lengths, leaf kinds), ``None`` (its own kind: ``if w
is not None`` is decided at compile time, so a call with ``w=None`` and one with an array
need different versions), or "other" (any other array type, which gets the generic
version). Computing the
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
    """A hashable key with one entry per argument (cheap: no AType objects).

    An ndarray's entry is ``(ndim, dtype char)``, or ``(ndim, dtype char, j)`` when its
    shape equals that of the earlier ndarray argument ``j`` (see :func:`same_shapes`)."""
    out = []
    first_of: dict[tuple[int, ...], int] = {}  # a shape -> the first array argument with it
    for i, a in enumerate(args):
        t = type(a)
        if t is np.ndarray:
            j = first_of.setdefault(a.shape, i) if a.ndim else i
            out.append((a.ndim, a.dtype.char) if j == i else (a.ndim, a.dtype.char, j))
        elif t in _PY or t is complex or a is None or isinstance(a, np.generic):
            out.append(t)
        elif is_structured(a) or _is_static(a):  # structured: its tree (keys, types,
            # lengths, leaf kinds); an object of a user's class by its attributes
            out.append(describe(a))
        else:
            out.append(None)
    return tuple(out)


def shape_fact(kind: Any) -> int | None:
    """The argument whose shape a key entry's array argument shares, if any."""
    if type(kind) is tuple and len(kind) == 3 and type(kind[0]) is int:
        return kind[2]
    return None


def same_shapes(key: Sequence[Any]) -> tuple[tuple[int, int], ...]:
    """``(j, i)`` for each array argument ``i`` whose shape equals argument ``j``'s.

    Elementwise code on two arrays of one shape (``x * w``) cannot know at compile time
    that neither broadcasts, so each adjoint would sum its cotangent back to its operand's
    shape (``unbroadcast``, a call and a shape read per operation). A call whose arrays
    share a shape gets a version that knows it: the dispatcher guards it with one tuple
    comparison per such argument (``y.shape == x.shape``) and the shapes pass puts those
    parameters in one shape class (``passes/shape_classes.py``)."""
    return tuple((j, i) for i, kind in enumerate(key)
                 if (j := shape_fact(kind)) is not None)


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
