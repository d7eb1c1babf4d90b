"""Linear algebra: ``linalg.inv solve det``, ``trace``, ``diag`` (norms: :mod:`.norms`).

One line per rule (``mT(a)`` = ``swapaxes(a, -1, -2)``, every formula batched):

===========  ===================================================================
inv          ``-mT(out) @ g @ mT(out)``
solve        b: ``solve(mT(a), g)`` = ``gb``;  a: ``-gb @ mT(out)`` (1-D ``b`` as columns)
det          ``g * out * mT(inv(x))``  (nonsingular ``x``)
trace        ``trace_adjoint(g, ...)``: ``g`` on the diagonal, zeros elsewhere (linear)
diag         ``diag_adjoint(g, x_shape, k)``: extract (1-D ``x``) or embed (2-D ``x``)
===========  ===================================================================

Helper primitives with their own rules: ``as_columns`` (1-D ``b`` of ``solve`` as a
column), ``trace_adjoint``, ``diag_adjoint`` (each linear; ``diag_adjoint``'s adjoint is
``np.diag`` again).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import foreign as _foreign
from .dispatch import as_array, dispatching, foreign
from .registry import LINEAR, defrule

Shape = tuple[int, ...]


def _mT(a: Any) -> Any:
    return np.swapaxes(a, -1, -2)


# --- inverse, solve, determinant ------------------------------------------------------------
defrule("inv", np.linalg.inv, inputs=("x",),
        vjp={"x": lambda g, out: -np.matmul(_mT(out), np.matmul(g, _mT(out)))},
        jvp={"x": lambda t, out: -np.matmul(out, np.matmul(t, out))},
        torch=("LinalgInvExBackward0", 1), pytorch=("sg.linalg.inv",))


@dispatching
def as_columns(v: Any, b_shape: Shape) -> Any:
    """``v`` with a trailing axis when ``solve``'s ``b`` was 1-D (a vector is a column)."""
    return as_array(v)[..., None] if len(tuple(b_shape)) == 1 else v


defrule("as_columns", as_columns, inputs=("v",), params=("b_shape",), kind=LINEAR,
        vjp={"v": lambda g, v_shape: np.reshape(g, v_shape)}, view=True)


def _solve_t(a: Any, g: Any, b_shape: Shape) -> Any:
    """``solve(mT(a), g)`` with ``g`` shaped like ``solve``'s result."""
    return np.linalg.solve(_mT(a), as_columns(g, b_shape))


# ``broadcasts``: batch axes of a and b broadcast; the engine sums them away (unbroadcast)
defrule("solve", np.linalg.solve, inputs=("a", "b"), broadcasts=True,
        vjp={"a": lambda g, a, b_shape, out:
             -np.matmul(_solve_t(a, g, b_shape), _mT(as_columns(out, b_shape))),
             "b": lambda g, a, b_shape: np.reshape(_solve_t(a, g, b_shape), np.shape(g))},
        jvp={"a": lambda t, a, b_shape, out: -np.reshape(
                 np.linalg.solve(a, np.matmul(t, as_columns(out, b_shape))), np.shape(out)),
             "b": lambda t, a, b_shape, out:
                 np.reshape(np.linalg.solve(a, as_columns(t, b_shape)), np.shape(out))},
        torch=("LinalgSolveExBackward0", 2), pytorch=("sg.linalg.solve",))
defrule("det", np.linalg.det, inputs=("x",),
        vjp={"x": lambda g, x, out: np.expand_dims(g * out, (-2, -1)) * _mT(np.linalg.inv(x))},
        jvp={"x": lambda t, x, out:
             out * np.trace(np.linalg.solve(x, t), axis1=-2, axis2=-1)},
        torch=("LinalgDetBackward0", 1), pytorch=("sg.linalg.det",))


# --- trace and diag ---------------------------------------------------------------------------
@dispatching
def trace_adjoint(c: Any, shape: Shape, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Zeros of ``shape`` with ``c`` along the ``offset`` diagonal of axes ``axis1, axis2``."""
    shape = tuple(shape)
    c = as_array(c)
    a1, a2 = axis1 % len(shape), axis2 % len(shape)
    eye = _foreign.in_library_of(np.eye(shape[a1], shape[a2], k=offset, dtype=c.dtype), c)
    return np.moveaxis(np.expand_dims(c, (-2, -1)) * eye, (-2, -1), (a1, a2))


@dispatching
def diag_adjoint(c: Any, shape: Shape, k: int = 0) -> Any:
    """The adjoint of ``np.diag(x, k)`` for ``x`` of ``shape``: extract or embed."""
    shape = tuple(shape)
    c = as_array(c)
    if len(shape) == 1:  # diag built a matrix from x; its adjoint reads the diagonal
        return np.diag(c, k)
    n = np.arange(c.shape[0])
    index = (n + max(-k, 0), n + max(k, 0))
    if foreign(c):  # no item assignment into an ndarray: a gathering form
        return _foreign.scatter(c, shape, index, accumulate=False)
    z = np.zeros(shape, dtype=c.dtype)
    z[index] = c
    return z


_TRACE_FORM = "x, offset=0, axis1=0, axis2=1"
defrule("trace", np.trace, inputs=("x",), params=("offset", "axis1", "axis2"), kind=LINEAR,
        form=_TRACE_FORM,
        vjp={"x": lambda g, x_shape, offset, axis1, axis2:
             trace_adjoint(g, x_shape, offset, axis1, axis2)},
        torch=("TraceBackward0", 1), methods=("trace",))
defrule("trace_adjoint", trace_adjoint, inputs=("c",),
        params=("shape", "offset", "axis1", "axis2"), kind=LINEAR,
        form="c, shape, offset=0, axis1=0, axis2=1",
        vjp={"c": lambda g, offset, axis1, axis2: np.trace(g, offset, axis1, axis2)})
defrule("diag", np.diag, inputs=("x",), params=("k",), kind=LINEAR, form="x, k=0",
        vjp={"x": lambda g, x_shape, k: diag_adjoint(g, x_shape, k)},
        torch=("DiagEmbedBackward0", 1), view=True)
defrule("diag_adjoint", diag_adjoint, inputs=("c",), params=("shape", "k"), kind=LINEAR,
        form="c, shape, k=0", vjp={"c": lambda g, k: np.diag(g, k)}, view=True)
