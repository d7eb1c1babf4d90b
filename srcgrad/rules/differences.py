"""``np.diff``: the n-th discrete difference along an axis, optionally of the array with
``prepend`` / ``append`` joined on first (NumPy's definition).

``diff`` is linear in ``a``, ``prepend`` and ``append`` jointly; an absent ``prepend`` /
``append`` is ``None``, which has no tangent, so forward mode is an explicit JVP per
input: the difference of the tangent with zeros joined in place of the other inputs
(``zeroed(value, like)``: zeros shaped like ``value``, ``None`` for ``None``). Reverse
mode reads the cotangent of the joined array, ``(D^T)^n g`` for the first difference
``D``, and cuts each input's piece out of it:

==============  ===================================================================
diff            a: ``diff_adjoint(g, n, axis, b1, b2)``; prepend: ``unbroadcast(
                diff_adjoint(g, n, axis, 0, b1), prepend_shape)`` (a scalar was
                broadcast); append likewise from ``b2`` to ``b3``, where ``bk =
                diff_bound(prepend, append, a_shape, axis, k)`` bound the pieces
diff_adjoint    c: ``diff_embedded(g, n, axis, start, stop, c_shape)`` (linear)
diff_embedded   c: ``diff_adjoint(g, n, axis, start, stop)`` (linear): ``c`` placed in
                zeros at ``[start, stop)`` of the joined axis, then differenced
==============  ===================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .helpers import unbroadcast
from .registry import LINEAR, NONDIFF, defrule
from .shape import astype
from .torch_names import tensor_edges

Shape = tuple[int, ...]


@dispatching
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``np.diff(a, n, axis, prepend=..., append=...)`` with ``None`` for "not given"."""
    kwargs = {}
    if prepend is not None:
        kwargs["prepend"] = prepend
    if append is not None:
        kwargs["append"] = append
    return np.diff(a, n, axis, **kwargs)


@dispatching
def zeroed(value: Any, like: Any) -> Any:
    """Zeros shaped like ``value``, in ``like``'s dtype (so a float32 tangent stays
    float32); ``None`` stays ``None``: nothing joined."""
    return None if value is None else np.zeros(np.shape(value), np.result_type(like))


def _joined_length(value: Any, axis: int) -> int:
    if value is None:
        return 0
    return 1 if np.ndim(value) == 0 else int(np.shape(value)[axis])


@dispatching
def diff_bound(prepend: Any, append: Any, a_shape: Shape, axis: int, k: int) -> int:
    """Where piece ``k`` of the joined axis ends: 1: ``prepend``'s, 2: ``a``'s,
    3: ``append``'s."""
    a_shape = tuple(a_shape)
    ax = int(axis) % len(a_shape)
    ends = [_joined_length(prepend, ax)]
    ends.append(ends[0] + a_shape[ax])
    ends.append(ends[1] + _joined_length(append, ax))
    return ends[int(k) - 1]


@dispatching
def diff_adjoint(c: Any, n: int, axis: int, start: int, stop: int) -> Any:
    """``[start, stop)`` along ``axis`` of ``(D^T)^n c``, the cotangent of the joined array
    of ``diff(..., n, axis)`` for output cotangent ``c``."""
    c = np.moveaxis(as_array(c), axis, -1)
    for _ in range(int(n)):
        # the first difference's transpose: out[0] = -c[0], out[k] = c[k-1] - c[k],
        # out[-1] = c[-1]; i.e. minus the difference of c with a zero on each side
        widths = [(0, 0)] * (c.ndim - 1) + [(1, 1)]
        c = -np.diff(np.pad(c, widths), axis=-1)
    return np.moveaxis(c[..., int(start):int(stop)], -1, axis)


@dispatching
def diff_embedded(c: Any, n: int, axis: int, start: int, stop: int, out_shape: Shape) -> Any:
    """``diff(z, n, axis)`` of zeros ``z`` with ``c`` at ``[start, stop)`` along ``axis``,
    ``z`` as long as the joined array whose difference has ``out_shape``."""
    c = as_array(c)
    out_shape = tuple(out_shape)
    ax = int(axis) % len(out_shape)
    shape = list(out_shape)
    shape[ax] += int(n)
    z = np.zeros(shape, dtype=c.dtype)
    z[(slice(None),) * ax + (slice(int(start), int(stop)),)] = c
    return np.diff(z, int(n), ax)


def _diff_a_vjp(g: Any, a_shape: Any, a_dtype: Any, prepend: Any, append: Any, n: int,
                axis: int) -> Any:
    # joined float64 constants make NumPy's result float64: back to the array's dtype
    return astype(diff_adjoint(g, n, axis, diff_bound(prepend, append, a_shape, axis, 1),
                               diff_bound(prepend, append, a_shape, axis, 2)), a_dtype)


def _diff_prepend_vjp(g: Any, a_shape: Any, prepend: Any, prepend_shape: Any,
                      prepend_dtype: Any, append: Any, n: int, axis: int) -> Any:
    piece = diff_adjoint(g, n, axis, 0, diff_bound(prepend, append, a_shape, axis, 1))
    return astype(unbroadcast(piece, prepend_shape), prepend_dtype)


def _diff_append_vjp(g: Any, a_shape: Any, prepend: Any, append: Any, append_shape: Any,
                     append_dtype: Any, n: int, axis: int) -> Any:
    piece = diff_adjoint(g, n, axis, diff_bound(prepend, append, a_shape, axis, 2),
                         diff_bound(prepend, append, a_shape, axis, 3))
    return astype(unbroadcast(piece, append_shape), append_dtype)


defrule("zeroed", zeroed, inputs=("like",), params=("value",), kind=NONDIFF,
        form="value, like")
defrule("diff_bound", diff_bound, inputs=("prepend", "append"),
        params=("a_shape", "axis", "k"), kind=NONDIFF)
defrule("diff_adjoint", diff_adjoint, inputs=("c",), params=("n", "axis", "start", "stop"),
        kind=LINEAR, view=True,  # n=0: a slice of c
        vjp={"c": lambda g, c_shape, n, axis, start, stop:
             diff_embedded(g, n, axis, start, stop, c_shape)})
defrule("diff_embedded", diff_embedded, inputs=("c",),
        params=("n", "axis", "start", "stop", "out_shape"), kind=LINEAR,
        vjp={"c": lambda g, n, axis, start, stop: diff_adjoint(g, n, axis, start, stop)})
defrule("diff", diff, inputs=("a", "prepend", "append"), params=("n", "axis"),
        form="a, n=1, axis=-1, prepend=None, append=None", aliases=(np.diff,),
        torch=tensor_edges("SubBackward0"), pytorch=("t.diff", "sg.diff"),
        view=True,  # np.diff(a, n=0) returns a itself
        vjp={"a": _diff_a_vjp, "prepend": _diff_prepend_vjp, "append": _diff_append_vjp},
        jvp={"a": lambda t, n, axis, prepend, append:
             diff(t, n, axis, zeroed(prepend, t), zeroed(append, t)),
             "prepend": lambda t, a, n, axis, append:
             diff(zeroed(a, t), n, axis, t, zeroed(append, t)),
             "append": lambda t, a, n, axis, prepend:
             diff(zeroed(a, t), n, axis, zeroed(prepend, t), t)})
