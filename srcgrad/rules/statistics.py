"""Order and weighted statistics (contract v3): ``np.average`` (with ``weights``),
``np.median``, and PyTorch's lower median ``median_low`` (``t.median()``).

``G`` = ``unreduce(g, x_shape, axis, keepdims)``:

==========  ============================================================================
average     ``a``: ``G * W / S``; ``weights``: ``G * (a - avg) / S``, summed back to the
            weights' shape, where ``W`` = ``weight_array(weights, ...)`` (the weights
            broadcast against ``a``, ones for ``weights=None``) and ``S`` their sum along
            ``axis``. ``returned=True`` (a tuple) is refused
median      ``G * median_weights(x, axis)``: the element(s) NumPy's value is made of, by
            stable sort order: 1 at the middle of an odd count, 1/2 at each of the two
            middles of an even one (ties are told apart by position, as the sort does); a
            slice holding a NaN has a NaN median and its first NaN gets the gradient
median_low  the runtime's ``t.median()``/``t.median(dim)``: the lower middle (PyTorch);
            over everything the gradient is split evenly among the elements equal to the
            value (PyTorch's ``evenly_distribute_backward``), along a dim it goes to the
            index ``t.median(dim)`` returns
==========  ============================================================================

``weight_array`` is linear in the weights (its VJP sums back with ``aligned_shape``, the
weights' shape with ones where ``a`` has axes the weights lack); ``median_weights`` and
``median_low_weights`` are zero-derivative helpers. Everything that depends on shapes is
in these helpers, decided at run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .foreign import in_library_of
from .helpers import unbroadcast, unreduce
from .reductions import _axes, fold_axes, unfold_axes
from .registry import LINEAR, NONDIFF, defrule
from .torch_names import by_axis

Shape = tuple[int, ...]


# --- average ----------------------------------------------------------------------------------
@dispatching
def aligned_shape(weights_shape: Shape, a_shape: Shape, axis: Any) -> Shape:
    """The shape ``np.average`` gives ``weights`` to broadcast against ``a``: itself when
    they match, else its lengths on ``axis`` and ones elsewhere (as NumPy's check)."""
    weights_shape, a_shape = tuple(weights_shape), tuple(a_shape)
    if weights_shape == a_shape or axis is None:
        return weights_shape
    axes = _axes(axis, len(a_shape))
    return tuple(a_shape[d] if d in axes else 1 for d in range(len(a_shape)))


@dispatching
def weight_array(weights: Any, a_shape: Shape, a_dtype: Any, axis: Any) -> Any:
    """``weights`` broadcast against an array of ``a_shape``; ones (``a_dtype``) if None."""
    if weights is None:
        return np.ones(tuple(a_shape), dtype=a_dtype)
    aligned = np.reshape(weights, aligned_shape(np.shape(weights), a_shape, axis))
    return np.broadcast_to(aligned, tuple(a_shape))


def _resolve_average(params: dict[str, Any], ndims: dict[str, int | None]) -> dict[str, Any]:
    if params.get("returned"):
        error = ValueError("np.average(..., returned=True) returns a tuple (average, sum of "
                           "weights) that srcgrad does not differentiate.")
        error.advice = ("Call np.average(a, axis, weights) and compute the sum of the weights "
                        "yourself with np.sum(weights).")  # type: ignore[attr-defined]
        raise error
    return params


def _avg_parts(a_shape: Any, a_dtype: Any, weights: Any, axis: Any, keepdims: Any) -> Any:
    w = weight_array(weights, a_shape, a_dtype, axis)
    return w, np.sum(w, axis=axis, keepdims=keepdims)


def _average_vjp_a(g: Any, a_shape: Any, a_dtype: Any, weights: Any, axis: Any,
                   keepdims: Any) -> Any:
    w, total = _avg_parts(a_shape, a_dtype, weights, axis, keepdims)
    return unreduce(g / total, a_shape, axis, keepdims) * w


def _average_vjp_w(g: Any, a: Any, a_shape: Any, a_dtype: Any, weights: Any,
                   weights_shape: Any, out: Any, axis: Any, keepdims: Any) -> Any:
    _, total = _avg_parts(a_shape, a_dtype, weights, axis, keepdims)
    spread = unreduce(g / total, a_shape, axis, keepdims) * (
        a - unreduce(out, a_shape, axis, keepdims))
    return np.reshape(unbroadcast(spread, aligned_shape(weights_shape, a_shape, axis)),
                      weights_shape)


def _average_jvp_a(t: Any, a_shape: Any, a_dtype: Any, weights: Any, axis: Any,
                   keepdims: Any) -> Any:
    w, total = _avg_parts(a_shape, a_dtype, weights, axis, keepdims)
    return np.sum(t * w, axis=axis, keepdims=keepdims) / total


def _average_jvp_w(t: Any, a: Any, a_shape: Any, a_dtype: Any, weights: Any, out: Any,
                   axis: Any, keepdims: Any) -> Any:
    _, total = _avg_parts(a_shape, a_dtype, weights, axis, keepdims)
    spread = weight_array(t, a_shape, a_dtype, axis) * (
        a - unreduce(out, a_shape, axis, keepdims))
    return np.sum(spread, axis=axis, keepdims=keepdims) / total


# --- medians ----------------------------------------------------------------------------------
def _one_hot(order: np.ndarray, k: int, dtype: Any) -> np.ndarray:
    """Along the last axis, 1 at position ``order[..., k]`` (a comparison with the lane
    index made in ``order``'s library: no host array written into)."""
    lanes = in_library_of(np.arange(order.shape[-1]), order)
    return (lanes == order[..., k:k + 1]).astype(dtype)


def _nan_first(folded: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Slices holding a NaN: all of their weight on their first NaN."""
    nan = np.isnan(folded)
    has = np.any(nan, axis=-1, keepdims=True)
    first = in_library_of(np.arange(folded.shape[-1]), folded) == np.argmax(nan, axis=-1)[
        ..., None]
    return np.where(has, first.astype(weights.dtype), weights)


def _float_dtype(x: np.ndarray) -> Any:
    return x.dtype if np.issubdtype(x.dtype, np.floating) else np.float64


@dispatching
def median_weights(x: Any, axis: Any = None) -> Any:
    """How ``np.median``'s gradient is shared among ``x``'s elements (module docstring)."""
    x = as_array(x)
    folded = fold_axes(x, axis)
    n = folded.shape[-1]
    order = np.argsort(folded, axis=-1, kind="stable")
    dtype = _float_dtype(x)
    weights = (_one_hot(order, (n - 1) // 2, dtype) + _one_hot(order, n // 2, dtype)) / 2
    return unfold_axes(_nan_first(folded, weights), x.shape, axis)


def _low_index(folded: np.ndarray) -> np.ndarray:
    """The lower middle's index along the last axis (the first NaN where there is one)."""
    n = folded.shape[-1]
    order = np.argsort(folded, axis=-1, kind="stable")
    nan = np.isnan(folded)
    return np.where(nan.any(axis=-1), np.argmax(nan, axis=-1), order[..., (n - 1) // 2])


@dispatching
def median_low(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """PyTorch's median: the lower middle of each slice (NaN if the slice has one)."""
    x = as_array(x)
    folded = fold_axes(x, axis)
    value = np.take_along_axis(folded, _low_index(folded)[..., None], axis=-1)[..., 0]
    if keepdims:
        value = np.reshape(value, tuple(1 if d in _axes(axis, x.ndim) else n
                                        for d, n in enumerate(x.shape)))
    return value


@dispatching
def median_low_index(x: Any, axis: int, keepdims: bool = False) -> Any:
    """The index ``t.median(dim)`` returns along ``axis``."""
    x = as_array(x)
    index = _low_index(fold_axes(x, axis))
    return np.expand_dims(index, axis) if keepdims else index


@dispatching
def median_low_weights(x: Any, axis: Any = None) -> Any:
    """How ``t.median()``'s gradient is shared (module docstring)."""
    x = as_array(x)
    folded = fold_axes(x, axis)
    dtype = _float_dtype(x)
    if axis is None:
        value = median_low(x)
        hits = np.isnan(x) if np.isnan(value) else x == value
        return (hits / np.count_nonzero(hits)).astype(dtype)
    hot = in_library_of(np.arange(folded.shape[-1]), folded) == _low_index(folded)[..., None]
    return unfold_axes(hot.astype(dtype), x.shape, axis)


def _weighted(g: Any, weights: Any) -> Any:
    """``g * weights``, 0 where the weight is 0 even for an infinite ``g``."""
    return np.where(weights != 0, g, 0) * weights


defrule("aligned_shape", aligned_shape, inputs=(), params=("weights_shape", "a_shape", "axis"),
        kind=NONDIFF)
defrule("weight_array", weight_array, inputs=("weights",), params=("a_shape", "a_dtype", "axis"),
        kind=LINEAR, view=True,  # the weights reshaped/broadcast: may share their memory
        vjp={"weights": lambda g, weights_shape, a_shape, axis: np.reshape(
            unbroadcast(g, aligned_shape(weights_shape, a_shape, axis)), weights_shape)})
defrule("average", np.average, inputs=("a", "weights"), params=("axis", "returned", "keepdims"),
        form="a, axis=None, weights=None, returned=False, *, keepdims=False",
        resolve=_resolve_average,
        vjp={"a": _average_vjp_a, "weights": _average_vjp_w},
        jvp={"a": _average_jvp_a, "weights": _average_jvp_w}, float_result=True)
for _name, _impl in (("median_weights", median_weights), ("median_low_weights",
                                                          median_low_weights)):
    defrule(_name, _impl, inputs=("x",), params=("axis",), kind=NONDIFF, form="x, axis=None")
defrule("median_low_index", median_low_index, inputs=("x",), params=("axis", "keepdims"),
        kind=NONDIFF, form="x, axis, keepdims=False")
defrule("median", np.median, inputs=("x",), params=("axis", "keepdims"),
        form="x, axis=None, *, keepdims=False",
        vjp={"x": lambda g, x, x_shape, axis, keepdims:
             _weighted(unreduce(g, x_shape, axis, keepdims), median_weights(x, axis))},
        jvp={"x": lambda t, x, axis, keepdims:
             np.sum(_weighted(t, median_weights(x, axis)), axis=axis, keepdims=keepdims)},
        torch=by_axis("MedianBackward0", "MedianBackward1"),
        kinks=("NumPy's median: 1 at the middle element of an odd count, 1/2 at each of the two "
               "middles of an even one; ties are told apart by stable sort position; a slice "
               "holding a NaN sends its gradient to its first NaN."))
defrule("median_low", median_low, inputs=("x",), params=("axis", "keepdims"),
        form="x, axis=None, keepdims=False",
        vjp={"x": lambda g, x, x_shape, axis, keepdims:
             _weighted(unreduce(g, x_shape, axis, keepdims), median_low_weights(x, axis))},
        jvp={"x": lambda t, x, axis, keepdims:
             np.sum(_weighted(t, median_low_weights(x, axis)), axis=axis, keepdims=keepdims)},
        torch=by_axis("MedianBackward0", "MedianBackward1"), runtime_only=True,
        pytorch=("t.median", "sg.median"),
        kinks=("PyTorch's lower median: over everything the gradient is split evenly among the "
               "elements equal to the value; along a dim it goes to the index t.median(dim) "
               "returns."))
