"""Reductions: ``sum mean prod max min var std`` (with ``axis``/``keepdims``) and ``cumsum``.

A reduction's cotangent has the reduced shape; ``unreduce`` (helpers) broadcasts it back
to the input's shape, whatever ``axis`` and ``keepdims`` were. The table (one line each;
``G`` = ``unreduce(g, x_shape, axis, keepdims)``, ``N`` = ``reduced_count(x_shape, axis)``):

========  ==========================================================================
sum       ``G``                                                      (linear)
mean      ``unreduce(g / N, ...)``: divided before broadcast       (linear)
prod      ``G * unfold_axes(prod_others(fold_axes(x, axis)), ...)``  exact with zeros
max, min  ``picked(g, max_picks(x, out, axis, keepdims), axis, keepdims)``, that is
          ``G * max_weights(x, axis)``: a full reduction splits among ties, along an
          axis the gradient goes to the one
          index ``argmax`` picks (PyTorch); a NaN is the maximum (it gets the gradient),
          and ``g`` is masked, so an infinite ``g`` gives 0, not NaN, where nothing was
          picked. Along one axis it is one ``np.where(one_hot, g, 0)``: ``g`` broadcasts
          against the mask, never materialised at ``x``'s shape nor multiplied by weights
var       ``G * (x - mean(x)) * 2 / (N - ddof)``: arrays on the left, so NumPy divides
          (NaN at N = ddof, as PyTorch; never Python's ZeroDivisionError)
std       the var rule on ``g / (2 out)``, 0 where ``out == 0`` (PyTorch masks it)
cumsum    reversed cumsum of ``g`` along ``axis`` (flattened when ``axis`` is None)
fsum      ``math.fsum`` of the items of ``x`` (a list is the array it makes): ``G``;
          forward mode ``np.sum(t)`` (the exactly rounded sum is the primal's business)
========  ==========================================================================

Helper primitives, each with its own rule so a VJP can be differentiated again:

- ``fold_axes(x, axis)`` / ``unfold_axes(y, shape, axis)``: move the reduced axes last and
  merge them into one (and back); linear, each other's adjoint;
- ``prod_others(x)``: along the last axis, the product of every *other* element (computed
  from two exclusive cumulative products: no division, so zeros are exact). Its VJP is
  written with ``prod_others`` itself on a leave-one-out matrix (``eye_mask``);
- ``max_weights(x, axis)``, ``min_weights(x, axis)``: how the gradient is shared (above).
- ``max_picks(x, out, axis, keepdims)``, ``min_picks``: the picked elements (a one-hot
  mask along one axis, else the weights); ``picked(g, picks, axis, keepdims)``: the VJP,
  linear in ``g``, whose own VJP gathers the picked elements (the max's forward rule).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import foreign as _foreign
from .dispatch import as_array, dispatching, foreign
from .helpers import reduced_count, unreduce
from .registry import LINEAR, NONDIFF, defrule
from .shape import astype
from .torch_names import by_axis, max_min_node

_REDUCE_FORM = "x, axis=None, *, keepdims=False"


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, int or tuple) as sorted non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(int(a) % max(ndim, 1) for a in axes))


def _kept(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(n for i, n in enumerate(shape) if i not in axes)


# --- helper primitives ----------------------------------------------------------------
@dispatching
def fold_axes(x: Any, axis: Any = None) -> Any:
    """``x`` with the axes in ``axis`` moved last and merged into one axis."""
    x = as_array(x)
    axes = _axes(axis, x.ndim)
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    return np.reshape(moved, (*_kept(x.shape, axes), math.prod(x.shape[a] for a in axes)))


@dispatching
def unfold_axes(y: Any, shape: tuple[int, ...], axis: Any = None) -> Any:
    """The inverse of :func:`fold_axes`: ``y`` back to ``shape``."""
    shape = tuple(shape)
    axes = _axes(axis, len(shape))
    folded = np.reshape(y, (*_kept(shape, axes), *(shape[a] for a in axes)))
    return np.moveaxis(folded, tuple(range(len(shape) - len(axes), len(shape))), axes)


@dispatching
def prod_others(x: Any) -> Any:
    """Along the last axis, the product of every element but the one at each position."""
    x = as_array(x)
    ones = np.ones_like(x[..., :1])
    before = np.cumprod(np.concatenate([ones, x[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, x[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


@dispatching
def eye_mask(x: Any) -> Any:
    """A boolean identity matrix as wide as ``x``'s last axis (of ``x``'s library)."""
    return _foreign.in_library_of(np.eye(np.shape(x)[-1], dtype=bool), x)


def _share(x: Any, axis: Any, pick: Any, arg: Any) -> Any:
    """Weights of the selected elements: ties split evenly (axis None) or first one.

    NumPy's max/min is NaN when a NaN is there; like PyTorch, the NaNs are then the
    selected elements (``arg`` = ``argmax``/``argmin`` returns the first NaN too).
    """
    x = as_array(x)
    dtype = x.dtype if np.issubdtype(x.dtype, np.floating) else np.float64
    if axis is None:
        value = pick(x)
        if foreign(x):  # no branch on a value: bool() would compute a lazy (Dask) array
            hits = np.where(np.isnan(value), np.isnan(x), x == value)
        else:
            hits = np.isnan(x) if np.isnan(value) else x == value
        return (hits / np.count_nonzero(hits)).astype(dtype)
    if x.ndim and (isinstance(axis, (int, np.integer))
                   or (isinstance(axis, tuple) and len(axis) == 1)):
        # one axis (softmax's max shift): the first maximum's one-hot along it, without
        # moving and merging axes
        a = int(axis if isinstance(axis, (int, np.integer)) else axis[0]) % x.ndim
        first = arg(x, axis=a, keepdims=True)
        index = np.arange(x.shape[a]).reshape((-1,) + (1,) * (x.ndim - 1 - a))
        return (_foreign.in_library_of(index, x) == first).astype(dtype)
    folded = fold_axes(x, axis)
    first = arg(folded, axis=-1)
    onehot = _foreign.in_library_of(np.arange(folded.shape[-1]), x) == first[..., None]
    return unfold_axes(onehot.astype(dtype), x.shape, axis)


def _one_axis(axis: Any, ndim: int) -> int | None:
    """The axis of a one-axis reduction of an ``ndim``-d array, else None."""
    if ndim and isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if ndim and isinstance(axis, (int, np.integer)):
        return int(axis) % ndim
    return None


def _picks(x: Any, out: Any, axis: Any, keepdims: bool, pick: Any, arg: Any) -> Any:
    """``_share``'s weights, except along one axis: there the one-hot of ``arg`` as a
    boolean mask (a weight of 1 needs no product). ``out`` is the reduction's result:
    ``x == out`` is that one-hot when every lane has exactly one hit, which a count shows
    (a lane without NaN has at least one hit, so as many hits as lanes and no NaN lane
    means one each); otherwise (ties, NaN) ``arg`` picks the first."""
    x = as_array(x)
    a = _one_axis(axis, x.ndim)
    if a is None:
        return _share(x, axis, pick, arg)
    if type(x) is np.ndarray and type(out) is np.ndarray:
        m = out if keepdims else out.reshape(x.shape[:a] + (1,) + x.shape[a + 1:])
        hits = x == m
        # no NaN lane: the lanes' sum is a number (one reduction, not isnan + any; a sum
        # that is NaN without a NaN lane, +inf with -inf, only sends it to argmax below)
        if np.count_nonzero(hits) == m.size:
            total = np.add.reduce(m, None)
            if total == total:
                return hits
    index = _foreign.in_library_of(np.arange(x.shape[a]).reshape((-1,) + (1,) * (x.ndim - 1 - a)),
                                   x)
    # (an ndarray's own method: np.argmax's wrapper costs more than the search, per call)
    first = x.argmax(axis=a, keepdims=True) if type(x) is np.ndarray and arg is np.argmax \
        else x.argmin(axis=a, keepdims=True) if type(x) is np.ndarray \
        else arg(x, axis=a, keepdims=True)
    return index == first


@dispatching
def max_picks(x: Any, out: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Which elements ``np.max(x, axis, keepdims)`` (= ``out``) picked: a one-hot mask along
    one axis, else the ties' shares (``max_weights``)."""
    return _picks(x, out, axis, keepdims, np.max, np.argmax)


@dispatching
def min_picks(x: Any, out: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Which elements ``np.min(x, axis, keepdims)`` (= ``out``) picked (as ``max_picks``)."""
    return _picks(x, out, axis, keepdims, np.min, np.argmin)


@dispatching
def picked(g: Any, picks: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """A max's/min's cotangent ``g`` sent to the elements ``picks`` selected, 0 elsewhere
    (linear in ``g``). ``g`` broadcasts against ``picks`` itself, so it is never
    materialised at the input's shape; a mask needs one ``np.where`` and no product. An
    infinite ``g`` gives 0 where nothing was picked (``np.where``, never ``inf * 0``)."""
    if axis is not None and not keepdims:
        a = _one_axis(axis, picks.ndim) if type(g) is np.ndarray else None
        if a is not None and g.ndim == picks.ndim - 1:
            # (a reshape: np.expand_dims's wrapper costs as much as the np.where, per call)
            g = g.reshape(g.shape[:a] + (1,) + g.shape[a:])
        else:
            g = np.expand_dims(g, _axes(axis, np.ndim(picks)))
    if picks.dtype == bool:
        return np.where(picks, g, 0)
    # (the weights have the primal's dtype; the cotangent keeps its own)
    return (np.where(picks != 0, g, 0) * picks).astype(np.result_type(g), copy=False)


@dispatching
def max_weights(x: Any, axis: Any = None) -> Any:
    """How ``max``'s gradient is shared among ``x``'s elements (PyTorch's convention)."""
    return _share(x, axis, np.max, np.argmax)


@dispatching
def min_weights(x: Any, axis: Any = None) -> Any:
    """How ``min``'s gradient is shared among ``x``'s elements (PyTorch's convention)."""
    return _share(x, axis, np.min, np.argmin)


defrule("fold_axes", fold_axes, inputs=("x",), params=("axis",), kind=LINEAR,
        form="x, axis=None", vjp={"x": lambda g, x_shape, axis: unfold_axes(g, x_shape, axis)},
        view=True)
defrule("unfold_axes", unfold_axes, inputs=("y",), params=("shape", "axis"), kind=LINEAR,
        form="y, shape, axis=None", vjp={"y": lambda g, axis: fold_axes(g, axis)}, view=True)
def _prod_others_vjp(g: Any, x: Any, out: Any) -> Any:
    # leave_one_out[..., k, j] = x_j, with 1 where j == k; prod_others of it along j then
    # holds, at [..., k, i], the product of every x_j but x_i and x_k
    leave_one_out = np.where(eye_mask(x), 1.0, np.expand_dims(x, -2))
    return np.sum(np.expand_dims(g, -2) * prod_others(leave_one_out), axis=-1) - g * out


# prod_others' Jacobian is symmetric, so its JVP is its VJP formula with t for g
defrule("prod_others", prod_others, inputs=("x",),
        vjp={"x": lambda g, x, out: _prod_others_vjp(g, x, out)},
        jvp={"x": lambda t, x, out: _prod_others_vjp(t, x, out)})
defrule("eye_mask", eye_mask, inputs=("x",), kind=NONDIFF)
defrule("max_weights", max_weights, inputs=("x",), params=("axis",), kind=NONDIFF,
        form="x, axis=None")
defrule("min_weights", min_weights, inputs=("x",), params=("axis",), kind=NONDIFF,
        form="x, axis=None")
defrule("max_picks", max_picks, inputs=("x", "out"), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, out, axis=None, keepdims=False")
defrule("min_picks", min_picks, inputs=("x", "out"), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, out, axis=None, keepdims=False")
# the transpose gathers the picked elements back: the max's own forward rule
defrule("picked", picked, inputs=("g", "picks"), params=("axis", "keepdims"), kind=LINEAR,
        form="g, picks, axis=None, keepdims=False", fresh=True,
        vjp={"g": lambda g, picks, axis, keepdims:
             np.sum(picked(g, picks, axis, True), axis=axis, keepdims=keepdims)})


# --- the reductions -------------------------------------------------------------------
def _reduction(name: str, impl: Any, vjp: Any, jvp: Any = None, kind: Any = None,
               **fields: Any) -> None:
    defrule(name, impl, inputs=("x",), params=("axis", "keepdims"), form=_REDUCE_FORM,
            kind=kind, vjp={"x": vjp}, jvp={"x": jvp} if jvp else {}, **fields)


def _others(x: Any, x_shape: Any, axis: Any) -> Any:
    return unfold_axes(prod_others(fold_axes(x, axis)), x_shape, axis)


_reduction("sum", np.sum, kind=LINEAR,
           vjp=lambda g, x_shape, axis, keepdims: unreduce(g, x_shape, axis, keepdims),
           torch=by_axis("SumBackward0", "SumBackward1"), methods=("sum",),
           pytorch=("t.sum", "sg.sum"))
_reduction("mean", np.mean, kind=LINEAR,
           # divided before it is broadcast: the reduced cotangent is the smaller array
           vjp=lambda g, x_shape, axis, keepdims:
               unreduce(g / reduced_count(x_shape, axis), x_shape, axis, keepdims),
           torch=by_axis("MeanBackward0", "MeanBackward1"), methods=("mean",), float_result=True,
           pytorch=("t.mean", "sg.mean"))
_reduction("prod", np.prod,
           vjp=lambda g, x, x_shape, axis, keepdims:
               unreduce(g, x_shape, axis, keepdims) * _others(x, x_shape, axis),
           jvp=lambda t, x, x_shape, axis, keepdims:
               np.sum(t * _others(x, x_shape, axis), axis=axis, keepdims=keepdims),
           torch=by_axis("ProdBackward0", "ProdBackward1"), methods=("prod",),
           pytorch=("t.prod", "sg.prod"),
           kinks=("With one zero, that element's gradient is the product of the others; with two "
                  "or more zeros every gradient is 0 (computed without dividing by the product)."))
_reduction("max", np.max, aliases=(np.amax,),
           vjp=lambda g, x, out, axis, keepdims:
               picked(g, max_picks(x, out, axis, keepdims), axis, keepdims),
           jvp=lambda t, x, out, axis, keepdims:
               np.sum(picked(t, max_picks(x, out, axis, keepdims), axis, True), axis=axis,
                      keepdims=keepdims),
           torch=max_min_node("Max"), methods=("max",),
           pytorch=("t.max", "sg.max"),
           kinks=("Ties: a full reduction splits the gradient evenly among the tied maxima; along"
                  " an axis it goes to the first maximal element (PyTorch's max(dim) index). A "
                  "NaN is the maximum: it gets the gradient."))
_reduction("min", np.min, aliases=(np.amin,),
           vjp=lambda g, x, out, axis, keepdims:
               picked(g, min_picks(x, out, axis, keepdims), axis, keepdims),
           jvp=lambda t, x, out, axis, keepdims:
               np.sum(picked(t, min_picks(x, out, axis, keepdims), axis, True), axis=axis,
                      keepdims=keepdims),
           torch=max_min_node("Min"), methods=("min",),
           pytorch=("t.min", "sg.min"),
           kinks=("Ties: a full reduction splits the gradient evenly among the tied minima; along"
                  " an axis it goes to the first minimal element (PyTorch's min(dim) index). A "
                  "NaN is the minimum: it gets the gradient."))


def _centered(x: Any, axis: Any) -> Any:
    return x - np.mean(x, axis=axis, keepdims=True)


def _safe(out: Any) -> Any:
    """``out`` with zeros replaced by inf, so dividing by it gives 0 there (std at 0)."""
    return np.where(out == 0, np.inf, out)


_VAR_FORM = "x, axis=None, *, ddof=0, keepdims=False"
_VAR_FIELDS = dict(inputs=("x",), params=("axis", "ddof", "keepdims"), form=_VAR_FORM)
defrule("var", np.var, **_VAR_FIELDS,
        vjp={"x": lambda g, x, x_shape, axis, ddof, keepdims:
             unreduce(g, x_shape, axis, keepdims) * _centered(x, axis) * 2.0
             / (reduced_count(x_shape, axis) - ddof)},
        jvp={"x": lambda t, x, x_shape, axis, ddof, keepdims:
             np.sum(t * _centered(x, axis), axis=axis, keepdims=keepdims) * 2.0
             / (reduced_count(x_shape, axis) - ddof)},
        torch=("VarBackward0", 1), methods=("var",), float_result=True,
        pytorch=("t.var", "sg.var"),
        kinks=("Of a constant: gradient 0. With ddof leaving no degree of freedom: NaN (0 / 0), "
               "at first and second order."))
defrule("std", np.std, **_VAR_FIELDS,
        vjp={"x": lambda g, x, x_shape, out, axis, ddof, keepdims:
             unreduce(g / _safe(out), x_shape, axis, keepdims) * _centered(x, axis)
             / (reduced_count(x_shape, axis) - ddof)},
        jvp={"x": lambda t, x, x_shape, out, axis, ddof, keepdims:
             np.sum(t * _centered(x, axis), axis=axis, keepdims=keepdims)
             / (_safe(out) * (reduced_count(x_shape, axis) - ddof))},
        torch=("StdBackward0", 1), methods=("std",), float_result=True,
        pytorch=("t.std", "sg.std"),
        kinks=("Of a constant: gradient 0 (where std' would divide by 0). With ddof leaving no "
               "degree of freedom: NaN."))
defrule("cumsum", np.cumsum, inputs=("x",), params=("axis",), kind=LINEAR, form="x, axis=None",
        vjp={"x": lambda g, x_shape, axis:
             np.reshape(np.flip(np.cumsum(np.flip(g, axis), axis), axis), x_shape)},
        torch=("CumsumBackward0", 1), methods=("cumsum",),
        pytorch=("t.cumsum", "sg.cumsum"))
@dispatching
def fsum(x: Any) -> float:
    """``math.fsum(x)`` (the exactly rounded sum of the items), dispatching like NumPy."""
    return math.fsum(x)


# math.fsum gives a Python float whatever the items' dtype: the cotangent goes back to it
defrule("fsum", fsum, inputs=("x",), aliases=(math.fsum,),
        vjp={"x": lambda g, x_shape, x_dtype: astype(unreduce(g, x_shape), x_dtype)},
        jvp={"x": lambda t: np.sum(t)})
