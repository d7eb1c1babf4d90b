"""One array where NumPy's joining functions take a sequence: ``np.vstack(A)``.

``concatenate``, ``stack``, ``vstack``, ``hstack``, ``dstack`` and ``column_stack`` given
one array iterate over its first axis, as over a list of its rows. The compiler knows an
array's ndim but not its length, so it cannot spell the rows out as separate operands of
the list form; it records ``joined_rows(a, how, axis, dtype, casting)`` instead (``how``:
the joining function's rule name), computed by NumPy's own function on the array.

Each element of ``a`` appears once in the result, at a place fixed by the shapes: the
rows (shape ``s``) are promoted to ``p`` (the function's rank promotion) and joined along
axis ``c`` of ``p`` (a new axis ``c`` for ``stack``), which is ``a`` reshaped to
``(k, *p)``, its first axis moved to ``c`` and merged with the next. So the rule is
linear and its cotangent undoes that: ``g`` reshaped to ``p[:c] + (k, p[c]) + p[c+1:]``
(``p[:c] + (k,) + p[c:]`` for ``stack``), axis ``c`` moved back to the front, reshaped to
``a``'s shape. The two shape facts come from helper primitives of the shapes alone (zero
derivative), so the cotangent is itself made of rules and differentiates again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .joining import _promoted as promoted_row
from .registry import LINEAR, NONDIFF, defrule
from .shape import joined_back

Shape = tuple[int, ...]

_SEQUENCE_FIRST = {"concatenate": np.concatenate, "stack": np.stack}
_PROMOTING = {"vstack": np.vstack, "hstack": np.hstack}  # (these take dtype=, casting=)
_PLAIN = {"dstack": np.dstack, "column_stack": np.column_stack}
JOINS = frozenset((*_SEQUENCE_FIRST, *_PROMOTING, *_PLAIN))


@dispatching  # (forward mode applies it to a tangent: a Sym or Tensor records it whole)
def joined_rows(a: Any, how: str, axis: int = 0, dtype: Any = None,
                casting: str = "same_kind") -> Any:
    """``how(a)``: the joining function applied to the rows of ``a``."""
    if how in _SEQUENCE_FIRST:
        return _SEQUENCE_FIRST[how](a, axis, dtype=dtype, casting=casting)
    if how in _PROMOTING:
        return _PROMOTING[how](a, dtype=dtype, casting=casting)
    return _PLAIN[how](a)


def _layout(a_shape: Any, how: str, axis: int) -> tuple[Shape, int, bool]:
    """The promoted row shape, the joining axis and whether it is a new axis (stack)."""
    s = tuple(int(n) for n in a_shape)[1:]
    if how == "stack":
        return s, axis % (len(s) + 1), True
    if how == "concatenate":
        if not s:
            raise ValueError("zero-dimensional arrays cannot be concatenated")
        return s, axis % len(s), False
    p = promoted_row(s, {"vstack": "v", "hstack": "h", "dstack": "d"}.get(how, "column"))
    c = {"vstack": 0, "dstack": 2, "column_stack": 1}.get(how, 0 if len(p) == 1 else 1)
    return p, c, False


@dispatching
def rows_shape(a_shape: Any, how: str, axis: int) -> Shape:
    """The result of ``joined_rows`` reshaped so that the rows' own axis is separate."""
    p, c, new = _layout(a_shape, how, axis)
    k = int(tuple(a_shape)[0])
    return (*p[:c], k, *p[c:]) if new else (*p[:c], k, p[c], *p[c + 1:])


@dispatching
def rows_axes(a_shape: Any, how: str, axis: int) -> tuple[int, ...]:
    """The permutation that moves the rows' axis (of :func:`rows_shape`) to the front."""
    p, c, _ = _layout(a_shape, how, axis)
    n = len(p) + 1
    return (c, *(i for i in range(n) if i != c))


def _canonical(args: Any, kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    how = args[1] if len(args) > 1 else kwargs.get("how")
    if how not in JOINS:
        raise ValueError(f"joined_rows: {how!r} is not a joining function")
    return list(args), kwargs


def _resolve(params: dict[str, Any], ndims: dict[str, int | None]) -> dict[str, Any]:
    if params["how"] == "concatenate" and ndims["a"] is not None and ndims["a"] < 2:
        error = ValueError("np.concatenate of one array joins its rows, and the rows of a "
                           f"{ndims['a']}-d array are zero-dimensional arrays, which cannot "
                           "be concatenated (NumPy raises the same)")
        error.advice = "Use the array itself, or np.stack to make rows of its items."  # type: ignore[attr-defined]
        raise error
    return params


defrule("rows_shape", rows_shape, inputs=(), params=("a_shape", "how", "axis"), kind=NONDIFF)
defrule("rows_axes", rows_axes, inputs=(), params=("a_shape", "how", "axis"), kind=NONDIFF)
defrule("joined_rows", joined_rows, inputs=("a",), params=("how", "axis", "dtype", "casting"),
        kind=LINEAR, form="a, how, axis=0, dtype=None, casting='same_kind'",
        canonical=_canonical, resolve=_resolve, fresh=True,
        vjp={"a": lambda g, a_shape, a_dtype, how, axis, dtype: joined_back(np.reshape(
            np.transpose(np.reshape(g, rows_shape(a_shape, how, axis)),
                         rows_axes(a_shape, how, axis)), a_shape), dtype, a_dtype)})
