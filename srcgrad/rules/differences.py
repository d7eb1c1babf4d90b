"""``np.diff``: the n-th discrete difference along an axis, optionally of the array with
``prepend`` / ``append`` joined on first (NumPy's definition).

``diff`` is linear in ``a`` when nothing is joined; joined *constants* shift it, so forward
mode is an explicit JVP, the difference of the tangent with zeros joined in their place
(``diff(t, n, axis, zeroed(prepend, t), zeroed(append, t))``). ``prepend``/``append`` are
static parameters: a differentiated value passed there is refused by the engine's check of a
rule's constant slots (join it with ``np.concatenate`` first instead).

=============  ====================================================================
diff           a: ``diff_adjoint(g, a_shape, n, axis, prepend, append)``: the first
               difference's transpose applied ``n`` times, the joined parts cut off
diff_adjoint   c: ``diff(g, n, axis, zeroed(prepend, g), zeroed(append, g))`` (linear)
=============  ====================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import LINEAR, NONDIFF, defrule
from .shape import astype

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
    """Zeros shaped like a joined constant, in ``like``'s dtype (so a float32 tangent stays
    float32); ``None`` stays ``None``: nothing joined."""
    return None if value is None else np.zeros(np.shape(value), np.result_type(like))


def _joined_length(value: Any, axis: int) -> int:
    if value is None:
        return 0
    return 1 if np.ndim(value) == 0 else int(np.shape(value)[axis])


@dispatching
def diff_adjoint(c: Any, shape: Shape, n: int = 1, axis: int = -1, prepend: Any = None,
                 append: Any = None) -> Any:
    """The adjoint of ``a -> diff(a, n, axis, prepend, append)`` for ``a`` of ``shape``."""
    shape = tuple(shape)
    c = np.moveaxis(np.asarray(c), axis, -1)
    a = int(axis) % len(shape)
    for _ in range(int(n)):
        # the first difference's transpose: out[0] = -c[0], out[k] = c[k-1] - c[k],
        # out[-1] = c[-1]; i.e. minus the difference of c with a zero on each side
        widths = [(0, 0)] * (c.ndim - 1) + [(1, 1)]
        c = -np.diff(np.pad(c, widths), axis=-1)
    before = _joined_length(prepend, a)
    c = c[..., before:before + shape[a]]
    return np.moveaxis(c, -1, a)


defrule("zeroed", zeroed, inputs=("like",), params=("value",), kind=NONDIFF,
        form="value, like")
defrule("diff_adjoint", diff_adjoint, inputs=("c",),
        params=("shape", "n", "axis", "prepend", "append"), kind=LINEAR,
        form="c, shape, n=1, axis=-1, prepend=None, append=None",
        vjp={"c": lambda g, n, axis, prepend, append:
             diff(g, n, axis, zeroed(prepend, g), zeroed(append, g))})
defrule("diff", diff, inputs=("a",), params=("n", "axis", "prepend", "append"),
        form="a, n=1, axis=-1, prepend=None, append=None", aliases=(np.diff,),
        # joined float64 constants make NumPy's result float64: the cotangent goes back to
        # the array's own dtype
        vjp={"a": lambda g, a_shape, a_dtype, n, axis, prepend, append:
             astype(diff_adjoint(g, a_shape, n, axis, prepend, append), a_dtype)},
        jvp={"a": lambda t, n, axis, prepend, append:
             diff(t, n, axis, zeroed(prepend, t), zeroed(append, t))})
