"""``np.linalg.norm``: every vector and matrix norm NumPy computes, with its derivative.

The derivative of a norm is ``D`` = d norm / d x, shaped like ``x``; the VJP is
``unreduce(g) * D``, the JVP ``sum(t * D)`` over the reduced axes.

============================  =============================================================
vector, ``ord`` 2 (None)      ``x / out``; 0 where ``out == 0`` (norm'(0) = 0, PyTorch)
vector, ``ord`` p (finite)    ``sign(x) |x|^(p-1) / out^(p-1)``; 0 where ``out == 0``
vector, ``ord`` 1             ``sign(x)``
vector, ``ord`` +-inf         ``sign(x)`` on the entries of largest (smallest) ``|x|``,
                              shared evenly among ties (PyTorch)
vector, ``ord`` 0             0 (a count of nonzeros, as PyTorch)
matrix, 'fro' (None)          ``x / out``
matrix, ``ord`` +-1 / +-inf   ``sign(x)`` on the column (row) of largest (smallest) sum
                              of ``|x|``, shared evenly among ties
matrix, ``ord`` 2 / -2        ``u v^T`` of the largest / smallest singular value
matrix, 'nuc'                 ``U V^T`` (thin SVD; both through :mod:`.decompositions`'
                              SVD items, so they differentiate again where the singular
                              values are simple and nonzero)
============================  =============================================================

Whether a call is a vector or a matrix norm depends on ``x``'s number of dimensions when
``axis`` is None, and a rule body must not branch on shapes; so the rule's ``resolve``
makes ``axis`` explicit from the ndims when the call is bound (compile time for the
compiler, call time for the runtime), and refuses (``ValueError``) an ``ord``/``axis`` pair
NumPy does not define. When the ndim is not known (a generic compile), ``axis`` stays
None and the helper ``norm_gradient`` decides at run time. ``norm_gradient`` is a helper
primitive without a derivative of its own: a second derivative through it is refused.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .decompositions import svd_u, svd_vt
from .dispatch import as_array, dispatching
from .helpers import unreduce
from .registry import defrule

Shape = tuple[int, ...]


def _is_number(ord: Any) -> bool:
    return isinstance(ord, (int, float, np.integer, np.floating)) and not isinstance(ord, bool)


def _matrix_ord(ord: Any) -> bool:
    if isinstance(ord, str):
        return ord in ("fro", "nuc")
    return ord is None or (_is_number(ord) and ord in (1, -1, 2, -2, math.inf, -math.inf))


def resolve_norm(params: dict[str, Any], ndims: dict[str, int | None]) -> dict[str, Any]:
    """``params`` with ``axis`` explicit whenever ``ord`` makes vector and matrix differ:
    an int for a vector norm, a pair for a matrix norm. ValueError for what NumPy refuses."""
    ord, axis = params.get("ord"), params.get("axis")
    call = f"np.linalg.norm(x, ord={ord!r}, axis={axis!r})"
    if axis is None:
        if ord is None:
            return params  # the 2-norm of every element, whatever the ndim
        ndim = ndims.get("x")
        if ndim is None:  # decided at run time by norm_gradient (no second order there)
            return params
        if ndim not in (1, 2):
            raise ValueError(f"{call} on a {ndim}-d array: NumPy needs a 1-d or 2-d array "
                             "here; pass axis=")
        axis = 0 if ndim == 1 else (0, 1)
    if isinstance(axis, (tuple, list)) and len(axis) == 1:
        axis = axis[0]
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        if ord is not None and not _is_number(ord):
            raise ValueError(f"{call}: {ord!r} is not a vector norm order; use a number, "
                             "np.inf or -np.inf")
        return {**params, "axis": int(axis)}
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        if not _matrix_ord(ord):
            raise ValueError(f"{call}: {ord!r} is not a matrix norm order; use one of 1, -1, "
                             "2, -2, np.inf, -np.inf, 'fro', 'nuc'")
        return {**params, "axis": (int(axis[0]), int(axis[1]))}
    raise ValueError(f"{call}: axis must be None, an int or a pair of ints")


def _matrix(axis: Any) -> bool:
    return isinstance(axis, tuple) and len(axis) == 2


def _euclidean(ord: Any, axis: Any) -> bool:
    return ord is None or (isinstance(ord, str) and ord == "fro") or (
        _is_number(ord) and ord == 2 and isinstance(axis, int))


def _safe(out: Any) -> Any:
    """``out`` with zeros replaced by inf: dividing by it gives 0 there."""
    return np.where(out == 0, np.inf, out)


def _even_share(hits: Any, like: Any, axis: int) -> Any:
    """The boolean ``hits`` as weights summing to 1 along ``axis`` (ties share evenly), in
    the float dtype of ``like`` (a bool / int count would be float64)."""
    weights = hits * np.ones_like(like)
    return weights / np.sum(weights, axis=axis, keepdims=True)


def _direction(x: Any, x_shape: Shape, out: Any, ord: Any, axis: Any, keepdims: bool) -> Any:
    """d norm / d x, shaped like ``x`` (not for the Euclidean norms: see ``_norm_vjp``)."""
    if axis is None:  # x's ndim was unknown when the call was bound
        return norm_gradient(x, out, ord, keepdims)
    if _matrix(axis):
        if isinstance(ord, str):  # 'nuc' ('fro' is Euclidean)
            return _svd_direction(x, axis, None)
        if ord in (2, -2):
            return _svd_direction(x, axis, -1 if ord == -2 else 0)
        # 1: the largest sum of |x| over axis[0] (a column), along axis[1]; inf: swapped
        summed, picked = (axis[0], axis[1]) if ord in (1, -1) else (axis[1], axis[0])
        sums = np.sum(np.abs(x), axis=summed, keepdims=True)
        best = (np.max if ord > 0 else np.min)(sums, axis=picked, keepdims=True)
        return np.sign(x) * _even_share(sums == best, sums, picked)
    if ord == 0:
        return np.zeros_like(x)
    if ord == 1:
        return np.sign(x)
    if math.isinf(ord):
        hits = np.abs(x) == unreduce(out, x_shape, axis, keepdims)
        return np.sign(x) * _even_share(hits, x, axis)
    # the general p-norm; the zero norm is masked on the way in too, so the next derivative
    # does not meet 0 * inf (a "double where")
    norm = unreduce(out, x_shape, axis, keepdims)
    zero = norm == 0
    scale = np.where(zero, 1.0, norm) ** (ord - 1)
    return np.where(zero, 0.0, np.sign(x) * np.abs(x) ** (ord - 1) / scale)


def _norm_vjp(g: Any, x: Any, x_shape: Shape, out: Any, ord: Any, axis: Any,
              keepdims: bool) -> Any:
    if _euclidean(ord, axis):
        return unreduce(g / _safe(out), x_shape, axis, keepdims) * x
    return unreduce(g, x_shape, axis, keepdims) * _direction(x, x_shape, out, ord, axis,
                                                             keepdims)


def _norm_jvp(t: Any, x: Any, x_shape: Shape, out: Any, ord: Any, axis: Any,
              keepdims: bool) -> Any:
    if _euclidean(ord, axis):
        return np.sum(t * x, axis=axis, keepdims=keepdims) / _safe(out)
    direction = _direction(x, x_shape, out, ord, axis, keepdims)
    return np.sum(t * direction, axis=axis, keepdims=keepdims)


def _svd_direction(x: Any, axis: tuple[int, int], k: int | None) -> Any:
    """``U Vt`` (``k`` None: the nuclear norm) or ``u_k v_k^T`` (the 2 / -2 norm) of the
    thin SVD of the matrices on ``axis``, through the SVD's item primitives, whose rules
    make this differentiable again (second order; simple, nonzero singular values)."""
    m = np.moveaxis(x, axis, (-2, -1))
    u, vt = svd_u(m), svd_vt(m)
    if k is not None:
        pick = slice(k, None if k == -1 else k + 1)
        u, vt = u[..., :, pick], vt[..., pick, :]
    return np.moveaxis(np.matmul(u, vt), (-2, -1), axis)


@dispatching
def norm_gradient(x: Any, out: Any, ord: Any, keepdims: bool = False) -> Any:
    """d norm / d x for ``norm(x, ord, axis=None)``, for a call bound before ``x``'s ndim
    was known (a generic compile): vector or matrix is decided here, at run time."""
    x = as_array(x)
    axis = resolve_norm({"ord": ord, "axis": None}, {"x": x.ndim})["axis"]
    if _euclidean(ord, axis):
        return x / _safe(unreduce(out, x.shape, axis, keepdims))
    return _direction(x, x.shape, out, ord, axis, keepdims)


# no derivative of its own: a second derivative through a generic compile is refused
defrule("norm_gradient", norm_gradient, inputs=("x", "out"), params=("ord", "keepdims"),
        form="x, out, ord, keepdims=False")
defrule("norm", np.linalg.norm, inputs=("x",), params=("ord", "axis", "keepdims"),
        form="x, ord=None, axis=None, keepdims=False", resolve=resolve_norm,
        vjp={"x": _norm_vjp}, jvp={"x": _norm_jvp}, torch=("LinalgVectorNormBackward0", 1),
        pytorch=("t.norm()", "sg.linalg.norm", "sg.linalg.vector_norm", "sg.linalg.matrix_norm"),
        kinks=("At 0 the gradient is 0 (a subgradient) and so is the second derivative (PyTorch's"
               " is NaN there)."))
