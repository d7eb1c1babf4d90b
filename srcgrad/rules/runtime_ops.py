"""Rules for the operations PyTorch's Tensor has and NumPy does not spell as one function.

They serve the runtime (``t.relu()``, ``t[0]``, ``t[i] = v``, ``t.zero_()``) and, being
ordinary rules, the compiler and the tests too. Shape-dependent work lives in helper
primitives (``take_flat``, ``put_flat``) with rules of their own, as DESIGN principle 2
asks; the view family reuses :mod:`.shape` (``reshape``, ``expand_dims``, ``transpose``,
``broadcast_to``) and :mod:`.helpers` (``getitem`` for advanced indexing, ``scatter_add``).

=============  =================================================================
relu           ``where(out > 0, g, 0)`` (``relu'(0) = 0``, as PyTorch)
sigmoid        ``g * out * (1 - out)``
softmax        ``out * (g - sum(g * out, axis, keepdims))``
log_softmax    ``g - exp(out) * sum(g, axis, keepdims)``
select, slice  ``scatter_add(g, x_shape, index)``: ``x[index]`` for an int / a slice
index_put      x: ``index_put(g, 0, index)``; values: ``getitem(g, index)``
copy_into      x: zeros; src: ``g`` (``dst.copy_(src)``: PyTorch's CopyBackwards)
fill           x: zeros; value: ``sum(g)`` (``fill_`` / ``zero_``)
take_flat      ``put_flat(g, x_shape, region)``: elements at flat positions ``region``
put_flat       ``take_flat(g, region)``
amax, amin     ``G * tie_share(x, out, axis, keepdims)``: PyTorch's ``amax``/``amin``
               split the gradient evenly among ties along every reduced axis (``max``
               along an axis picks one index); like PyTorch, ``G / count * mask``
=============  =================================================================
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .helpers import getitem, scatter_add, unreduce, written_copy
from .registry import ELEMENTWISE, LINEAR, NONDIFF, defrule
from .torch_names import fill_node


def _constant(value: float, dtype: np.dtype) -> np.ndarray:
    c = np.array(value, dtype=dtype)
    c.flags.writeable = False
    return c


# 0 and 1 as 0-d arrays of the usual float dtypes: a Python number meeting an array takes
# the array's dtype anyway (NEP 50), but NumPy converts it per call at about the cost of
# the operation on small arrays (the runtime's relu and sigmoid, once per op)
_ZERO_ONE = {np.dtype(t): (_constant(0, t), _constant(1, t)) for t in (np.float32, np.float64)}
_NUMBERS = (0, 1)


def _zero_one(x: Any) -> tuple[Any, Any]:
    """0 and 1 for arithmetic with ``x``: 0-d arrays of its dtype, or Python numbers."""
    return _ZERO_ONE.get(x.dtype, _NUMBERS) if type(x) is np.ndarray else _NUMBERS


@dispatching
def relu(x: Any) -> Any:
    """``max(x, 0)`` elementwise, keeping ``x``'s dtype."""
    return np.maximum(x, _zero_one(x)[0])


@dispatching
def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))``, computed without overflow for large ``|x|``."""
    e = np.exp(-np.abs(x))
    zero, one = _zero_one(e)
    # 1 / (1 + e) or e / (1 + e): the numerator picked first, one division (per call on
    # small arrays each operation costs as much as the arithmetic)
    s = np.where(as_array(x) >= zero, one, e)
    if type(s) is np.ndarray:  # (np.where's result is new: divided in place, 0-d stays 0-d)
        s /= one + e
        return s
    return s / (one + e)


@dispatching
def softmax(x: Any, axis: int = -1) -> Any:
    """``exp(x) / sum(exp(x), axis)``, shifted by the maximum for stability."""
    z = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return z / np.sum(z, axis=axis, keepdims=True)


@dispatching
def log_softmax(x: Any, axis: int = -1) -> Any:
    """``x - log(sum(exp(x), axis))``, shifted by the maximum for stability."""
    z = x - np.max(x, axis=axis, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


defrule("relu", relu, inputs=("x",), kind=ELEMENTWISE,
        vjp={"x": lambda g, out: np.where(out > 0, g, 0.0)},
        torch="ReluBackward0", runtime_only=True,
        pytorch=("t.relu", "sg.relu", "sg.nn.functional.relu", "sg.nn.ReLU"),
        kinks="relu'(0) = 0; second derivative 0 everywhere.")
defrule("sigmoid", sigmoid, inputs=("x",), kind=ELEMENTWISE,
        vjp={"x": lambda g, out: g * (out * (1 - out))},
        torch="SigmoidBackward0", float_result=True, runtime_only=True,
        kinks="Overflow-free: at +-800 the derivative is exactly 0 (and 0.25 at 0), no warning.",
        pytorch=("t.sigmoid", "sg.sigmoid", "sg.nn.functional.sigmoid", "sg.nn.Sigmoid"))
defrule("softmax", softmax, inputs=("x",), params=("axis",), form="x, axis=-1",
        vjp={"x": lambda g, out, axis: out * (g - np.sum(g * out, axis=axis, keepdims=True))},
        jvp={"x": lambda t, out, axis: out * (t - np.sum(t * out, axis=axis, keepdims=True))},
        torch="SoftmaxBackward0", float_result=True, runtime_only=True,
        pytorch=("t.softmax", "sg.softmax", "sg.nn.functional.softmax", "sg.nn.Softmax"))
defrule("log_softmax", log_softmax, inputs=("x",), params=("axis",), form="x, axis=-1",
        vjp={"x": lambda g, out, axis: g - np.exp(out) * np.sum(g, axis=axis, keepdims=True)},
        jvp={"x": lambda t, out, axis: t - np.sum(np.exp(out) * t, axis=axis, keepdims=True)},
        torch="LogSoftmaxBackward0", float_result=True, runtime_only=True,
        kinks="Overflow-free (from exp(out) <= 1): inputs 1600 apart differentiate exactly.",
        pytorch=("t.log_softmax", "sg.log_softmax", "sg.nn.functional.log_softmax",
                 "sg.nn.LogSoftmax"))


# --- reading part of a tensor: select / slice (views) --------------------------------
@dispatching
def select(x: Any, index: Any) -> Any:
    """``x[index]`` where ``index`` picks one position of one dimension (a view)."""
    parts = index if isinstance(index, tuple) else (index,)
    if not any(p is Ellipsis for p in parts):
        parts = (*parts, Ellipsis)  # an Ellipsis keeps a 0-d result a view, not a scalar
    return as_array(x)[parts]


@dispatching
def slice_(x: Any, index: Any) -> Any:
    """``x[index]`` where ``index`` slices one dimension (a view)."""
    return as_array(x)[index]


defrule("select", select, inputs=("x",), params=("index",), kind=LINEAR,
        vjp={"x": lambda g, x_shape, index: scatter_add(g, x_shape, index)},
        torch="SelectBackward0", view=True, runtime_only=True,
        pytorch=("t[i]",))
defrule("slice", slice_, inputs=("x",), params=("index",), kind=LINEAR,
        vjp={"x": lambda g, x_shape, index: scatter_add(g, x_shape, index)},
        torch="SliceBackward0", view=True, runtime_only=True,
        pytorch=("t[a:b]",))


# --- writing into a tensor ---------------------------------------------------------------
@dispatching
def index_put(x: Any, values: Any, index: Any) -> Any:
    """A copy of ``x`` with ``values`` written at ``index`` (``x[index] = values``)."""
    return written_copy(x, values, index)


@dispatching
def copy_into(x: Any, src: Any) -> Any:
    """``src`` broadcast to ``x``'s shape in ``x``'s dtype (what ``x.copy_(src)`` leaves)."""
    x = as_array(x)
    return np.array(np.broadcast_to(src, x.shape), dtype=x.dtype)


@dispatching
def fill(x: Any, value: Any) -> Any:
    """An array like ``x`` holding ``value`` everywhere (``x.fill_(value)``)."""
    return np.full_like(x, value)


defrule("index_put", index_put, inputs=("x", "values"), params=("index",), broadcasts=True,
        kind=LINEAR,
        vjp={"x": lambda g, index: index_put(g, 0.0, index),
             "values": lambda g, index: getitem(g, index)},
        torch=("IndexPutBackward0", 2), runtime_only=True,
        pytorch=("t[index] = v",))
defrule("copy_into", copy_into, inputs=("x", "src"), broadcasts=True, kind=LINEAR,
        vjp={"x": lambda g: np.zeros_like(g), "src": lambda g: g},
        torch=("CopyBackwards", 2), runtime_only=True,
        pytorch=("t.copy_",))
defrule("fill", fill, inputs=("x", "value"), kind=LINEAR,
        vjp={"x": lambda g: np.zeros_like(g), "value": lambda g: np.sum(g)},
        torch=fill_node, runtime_only=True,
        pytorch=("t.fill_", "t.zero_"))


# --- flat positions: the region an in-place write touched -----------------------------
@dispatching
def take_flat(x: Any, region: Any) -> Any:
    """The elements of ``x`` at flat positions ``region`` (shaped like ``region``)."""
    return np.reshape(as_array(x), (-1,))[region]


@dispatching
def put_flat(x: Any, shape: Any, region: Any) -> Any:
    """Zeros of ``shape`` with ``x`` added at flat positions ``region`` (the adjoint)."""
    x = as_array(x)
    flat = np.zeros(math.prod(shape), dtype=x.dtype)
    np.add.at(flat, np.reshape(region, (-1,)), np.reshape(np.broadcast_to(x, np.shape(region)),
                                                          (-1,)))
    return np.reshape(flat, shape)


defrule("take_flat", take_flat, inputs=("x",), params=("region",), kind=LINEAR,
        vjp={"x": lambda g, x_shape, region: put_flat(g, x_shape, region)},
        torch="AsStridedBackward0", runtime_only=True)
defrule("put_flat", put_flat, inputs=("x",), params=("shape", "region"), kind=LINEAR,
        vjp={"x": lambda g, region: take_flat(g, region)}, runtime_only=True)


# --- amax / amin: ties share the gradient along every reduced axis ---------------------
@dispatching
def amax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.max`` as ``torch.amax`` (its gradient differs: see ``tie_share``)."""
    return np.max(x, axis=axis, keepdims=keepdims)


@dispatching
def amin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.min`` as ``torch.amin`` (its gradient differs: see ``tie_share``)."""
    return np.min(x, axis=axis, keepdims=keepdims)


@dispatching
def tie_share(x: Any, out: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``1 / count`` where ``x`` equals the reduced ``out``, else 0 (NaN rows: 0 / 0)."""
    x = as_array(x)
    hits = x == unreduce(out, x.shape, axis, keepdims)
    share = hits / np.sum(hits, axis=axis, keepdims=True)
    return share.astype(x.dtype) if x.dtype.kind == "f" else share


_AMAX_FORM = "x, axis=None, keepdims=False"
defrule("tie_share", tie_share, inputs=("x", "out"), params=("axis", "keepdims"),
        kind=NONDIFF, form="x, out, axis=None, keepdims=False", runtime_only=True)
_AMAX_FIELDS: dict[str, Any] = dict(
    inputs=("x",), params=("axis", "keepdims"), form=_AMAX_FORM,
    vjp={"x": lambda g, x, x_shape, out, axis, keepdims:
         unreduce(g, x_shape, axis, keepdims) * tie_share(x, out, axis, keepdims)},
    jvp={"x": lambda t, x, out, axis, keepdims:
         np.sum(t * tie_share(x, out, axis, keepdims), axis=axis, keepdims=keepdims)})
defrule("amax", amax, **_AMAX_FIELDS, torch=("AmaxBackward0", 1), runtime_only=True,
        pytorch=("t.amax", "sg.amax"),
        kinks=("Ties (full or along an axis) split the gradient evenly among the tied maxima "
               "(PyTorch's amax)."))
defrule("amin", amin, **_AMAX_FIELDS, torch=("AminBackward0", 1), runtime_only=True,
        pytorch=("t.amin", "sg.amin"),
        kinks=("Ties (full or along an axis) split the gradient evenly among the tied minima "
               "(PyTorch's amin)."))

