"""More reductions (contract v3): ``cumprod``, ``nansum`` and ``nanmean``.

Same conventions as :mod:`.reductions` (``G`` = ``unreduce(g, x_shape, axis, keepdims)``):

=========  ============================================================================
cumprod    ``J^T g`` with ``J[i, j] = prod(x[k] for k <= i, k != j)`` for ``j <= i``:
           ``prod_others`` of the prefix ``x[:i+1]`` (padded with ones), no division,
           so zeros in ``x`` are exact (O(n^2) along the axis). ``axis=None``
           flattens, as NumPy does
nansum     ``G`` where ``x`` is not NaN, 0 at the NaNs (they count as 0, as in PyTorch)
nanmean    ``G / count`` where ``x`` is not NaN (``count``: non-NaN entries reduced),
           0 at the NaNs; an all-NaN slice has a NaN mean and a zero gradient (PyTorch's
           is NaN there: its ``nansum / count`` meets ``0 * inf``), in both modes
=========  ============================================================================

``tri_mask(x)`` is the zero-derivative helper: the lower-triangular boolean matrix
(``[i, k]``: ``k <= i``) as wide as ``x``'s last axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import foreign as _foreign
from .dispatch import dispatching
from .helpers import unreduce
from .reductions import fold_axes, prod_others, unfold_axes
from .registry import NONDIFF, defrule
from .shape import astype

_REDUCE_FORM = "x, axis=None, *, keepdims=False"


@dispatching
def tri_mask(x: Any) -> Any:
    """``[i, k] = k <= i``, as wide as ``x``'s last axis (in ``x``'s array library)."""
    return _foreign.in_library_of(np.tri(np.shape(x)[-1], dtype=bool), x)


defrule("tri_mask", tri_mask, inputs=("x",), kind=NONDIFF)


def _cumprod_jacobian(x: Any, axis: Any) -> Any:
    """``J[..., i, j]`` of the cumulative product along the folded last axis."""
    folded = fold_axes(x, axis)
    lower = tri_mask(folded)
    prefixes = np.where(lower, np.expand_dims(folded, -2), 1.0)  # row i: x[:i+1], then ones
    return np.where(lower, prod_others(prefixes), 0.0)


def _cumprod_vjp(g: Any, x: Any, x_shape: Any, axis: Any) -> Any:
    # g has the result's shape: flat for axis None (folding keeps it), x's otherwise
    folded_g = fold_axes(g, axis)
    back = np.sum(np.expand_dims(folded_g, -1) * _cumprod_jacobian(x, axis), axis=-2)
    return unfold_axes(back, x_shape, axis)


def _cumprod_jvp(t: Any, x: Any, x_shape: Any, axis: Any) -> Any:
    ahead = np.sum(_cumprod_jacobian(x, axis) * np.expand_dims(fold_axes(t, axis), -2), axis=-1)
    return ahead if axis is None else unfold_axes(ahead, x_shape, axis)


def _finite_count(x: Any, x_dtype: Any, axis: Any, keepdims: Any) -> Any:
    present = np.logical_not(np.isnan(x))
    return astype(np.sum(present, axis=axis, keepdims=keepdims), x_dtype)


def _masked(x: Any, values: Any) -> Any:
    return np.where(np.isnan(x), 0, values)


def _per_count(v: Any, count: Any) -> Any:
    """``v / count``, 0 where the count is 0 (an all-NaN slice: its mean is the constant
    NaN, whose tangent is 0; a double where, so no 0/0 at any order)."""
    empty = np.equal(count, 0)
    return np.where(empty, 0, v / np.where(empty, 1, count))


defrule("cumprod", np.cumprod, inputs=("x",), params=("axis",), form="x, axis=None",
        vjp={"x": _cumprod_vjp}, jvp={"x": _cumprod_jvp},
        torch=("CumprodBackward0", 1), methods=("cumprod",), pytorch=("t.cumprod", "sg.cumprod"),
        kinks=("Exact through zeros (products of the other prefix items, no division): an item "
               "after the first zero gets 0, the first zero the product of the others."))
defrule("nansum", np.nansum, inputs=("x",), params=("axis", "keepdims"), form=_REDUCE_FORM,
        vjp={"x": lambda g, x, x_shape, axis, keepdims:
             _masked(x, unreduce(g, x_shape, axis, keepdims))},
        jvp={"x": lambda t, x, axis, keepdims:
             np.sum(_masked(x, t), axis=axis, keepdims=keepdims)},
        torch=("NansumBackward0", 1), pytorch=("t.nansum", "sg.nansum"),
        kinks="0 at the NaNs (they count as 0), 1 elsewhere, as PyTorch.")
defrule("nanmean", np.nanmean, inputs=("x",), params=("axis", "keepdims"), form=_REDUCE_FORM,
        vjp={"x": lambda g, x, x_shape, x_dtype, axis, keepdims: _masked(x, unreduce(
             _per_count(g, _finite_count(x, x_dtype, axis, keepdims)), x_shape, axis,
             keepdims))},
        jvp={"x": lambda t, x, x_dtype, axis, keepdims:
             _per_count(np.sum(_masked(x, t), axis=axis, keepdims=keepdims),
                        _finite_count(x, x_dtype, axis, keepdims))},
        torch=("DivBackward0", 1),  # PyTorch: nansum(x) / count; one node here
        float_result=True, pytorch=("t.nanmean", "sg.nanmean"),
        kinks=("0 at the NaNs, 1 / count elsewhere; an all-NaN slice (mean NaN) gets 0 in both "
               "modes (PyTorch's is NaN: its nansum / count meets 0 * inf)."))
