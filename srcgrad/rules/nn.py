"""PyTorch's fused neural-network nodes as rules: the losses, ``gelu`` and ``addmm``.

``sg.nn.functional`` (runtime layer) records these where PyTorch records one fused node
(``MseLossBackward0``, ``NllLossBackward0``, ``GeluBackward0``, ``AddmmBackward0``...);
where PyTorch composes other ops (``l1_loss``, ``cross_entropy`` with probabilities,
``dropout``) the functional layer composes them too and no rule is needed here.

Every loss is ``reduce(elementwise loss, reduction)`` with ``reduction`` a static param
(``"none"``, ``"sum"``, ``"mean"``); its VJP is ``spread(g) * d(elementwise)/d(input)``
(:func:`_spread`) and its JVP ``reduce(d(elementwise)/d(input) * t)`` (:func:`_reduce`),
all in NumPy's vocabulary so ``create_graph=True`` differentiates them again. Inputs
and targets have one shape (the functional layer broadcasts first, as PyTorch does).

=====================================  ==============================================
mse_loss(x, target)                    ``(x - target) ** 2``
smooth_l1_loss(x, target, beta > 0)    ``0.5 d**2 / beta`` if ``|d| < beta`` else
                                       ``|d| - beta / 2``; slope ``clip(d / beta, -1, 1)``
binary_cross_entropy(x, target, w)     ``-w (t log x + (1 - t) log(1 - x))``, logs clamped
                                       at -100 and the slope's denominator at 1e-12
                                       (PyTorch's constants)
binary_cross_entropy_with_logits       ``w ((1 - t) x + (1 + (pw - 1) t) softplus(-x))``,
(x, target, w, pos_weight)             softplus and sigmoid in overflow-free forms
nll_loss(x, target, w, axis, ...)      ``-sum(W * x, axis)``, ``W`` the one-hot class
                                       weights (:func:`nll_weights`); mean divides by
                                       ``sum(W)``, as PyTorch's weighted mean does
gelu(x, approximate)                   ``x Phi(x)`` (``ndtr``) or PyTorch's tanh form
addmm(input, mat1, mat2)               ``input + mat1 @ mat2`` (``linear`` with a bias)
=====================================  ==============================================
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .helpers import reduced_count
from .registry import ELEMENTWISE, NONDIFF, defrule
from .runtime_ops import sigmoid
from .torch_names import nll_loss_node

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715
_LOG_FLOOR = -100.0  # PyTorch clamps BCE's logs here, so a 0 / 1 prediction stays finite
_BCE_EPS = 1e-12  # ... and the slope's denominator x (1 - x) here


# --- reductions shared by every loss (plain Python over primitives: a static branch) -------
def _reduce(v: Any, reduction: str) -> Any:
    if reduction == "mean":
        return np.mean(v)
    if reduction == "sum":
        return np.sum(v)
    return v


def _spread(g: Any, d: Any, x_shape: Any, reduction: str) -> Any:
    """The cotangent of the elementwise loss, times its slope ``d``."""
    if reduction == "mean":
        return g / reduced_count(x_shape, None) * d
    return g * d  # 'sum': a scalar g broadcasts over d; 'none': g is elementwise


def _loss(name: str, impl: Any, inputs: tuple[str, ...], params: tuple[str, ...], form: str,
          slopes: dict[str, Any], **facts: Any) -> None:
    """Register a loss from the slope of its elementwise part for each input; ``facts``
    are the record's other fields (``torch=``, ``pytorch=``, ``kinks=``)."""
    names = (*inputs, *params)
    defrule(name, impl, inputs=inputs, params=params, form=form,
            vjp={k: _vjp_of(s, names) for k, s in slopes.items()},
            jvp={k: _jvp_of(s, names) for k, s in slopes.items()},
            runtime_only=True, **facts)


def _vjp_of(slope: Any, names: tuple[str, ...]) -> Any:
    full = ("g", "x_shape", *names)

    def vjp(*args: Any, **kwargs: Any) -> Any:
        env = {**dict(zip(full, args)), **kwargs}
        g, x_shape = env.pop("g"), env.pop("x_shape")
        return _spread(g, slope(**env), x_shape, env["reduction"])

    return _named(vjp, full)


def _jvp_of(slope: Any, names: tuple[str, ...]) -> Any:
    full = ("t", *names)

    def jvp(*args: Any, **kwargs: Any) -> Any:
        env = {**dict(zip(full, args)), **kwargs}
        t = env.pop("t")
        return _reduce(slope(**env) * t, env["reduction"])

    return _named(jvp, full)


def _named(fn: Any, names: tuple[str, ...]) -> Any:
    """``fn`` with the explicit signature ``names`` (called by name or by position): the
    registry reads from a derivative's parameter names what it needs, and so what a tape
    must save."""
    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    return fn


# --- mse_loss ------------------------------------------------------------------------------
@dispatching
def mse_loss(x: Any, target: Any, reduction: str = "mean") -> Any:
    """``reduce((x - target) ** 2)``."""
    d = np.subtract(x, target)
    return _reduce(d * d, reduction)


_loss("mse_loss", mse_loss, ("x", "target"), ("reduction",), "x, target, reduction='mean'",
      {"x": lambda x, target, reduction: 2.0 * (x - target),
       "target": lambda x, target, reduction: -2.0 * (x - target)},
      torch=("MseLossBackward0", 2),
      pytorch=("sg.nn.functional.mse_loss", "sg.nn.MSELoss"))


# --- smooth_l1_loss (beta > 0; beta == 0 is l1_loss, composed by the caller) -------------
@dispatching
def smooth_l1_loss(x: Any, target: Any, reduction: str = "mean", beta: float = 1.0) -> Any:
    """Quadratic within ``beta`` of the target, linear outside."""
    d = np.subtract(x, target)
    a = np.abs(d)
    return _reduce(np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)


_loss("smooth_l1_loss", smooth_l1_loss, ("x", "target"), ("reduction", "beta"),
      "x, target, reduction='mean', beta=1.0",
      {"x": lambda x, target, reduction, beta: np.clip((x - target) / beta, -1.0, 1.0),
       "target": lambda x, target, reduction, beta: -np.clip((x - target) / beta, -1.0, 1.0)},
      torch=("SmoothL1LossBackward0", 2),
      pytorch=("sg.nn.functional.smooth_l1_loss", "sg.nn.SmoothL1Loss"),
      kinks=("At |input - target| = beta the slope is +-1 from both sides; the second "
             "derivative is 1 / beta inside and 0 outside (at the bound, clip's: 1 / beta). "
             "beta = 0 is l1_loss, composed (abs'(0) = 0)."))


# --- binary_cross_entropy ------------------------------------------------------------------
@dispatching
def binary_cross_entropy(x: Any, target: Any, weight: Any = 1.0,
                         reduction: str = "mean") -> Any:
    """``-w (t log x + (1 - t) log(1 - x))`` with PyTorch's clamped logs."""
    log_x = np.maximum(np.log(x), _LOG_FLOOR)
    log_1mx = np.maximum(np.log(1.0 - x), _LOG_FLOOR)
    return _reduce(-weight * (target * log_x + (1.0 - target) * log_1mx), reduction)


_loss("binary_cross_entropy", binary_cross_entropy, ("x", "target", "weight"),
      ("reduction",), "x, target, weight=1.0, reduction='mean'",
      {"x": lambda x, target, weight, reduction:
          weight * (x - target) / np.maximum((1.0 - x) * x, _BCE_EPS),
       "target": lambda x, target, weight, reduction:
          weight * (np.maximum(np.log(1.0 - x), _LOG_FLOOR)
                    - np.maximum(np.log(x), _LOG_FLOOR))},
      torch=("BinaryCrossEntropyBackward0", 2),
      pytorch=("sg.nn.functional.binary_cross_entropy", "sg.nn.BCELoss"),
      kinks=("At input 0 or 1 the logs are clamped at -100 and the slope's denominator "
             "input (1 - input) at 1e-12 (PyTorch's constants): finite loss and gradient "
             "(0 where the target equals the input, else about 1e12 * weight)."))


# --- binary_cross_entropy_with_logits ---------------------------------------------------
def _softplus_neg(x: Any) -> Any:
    """``log(1 + exp(-x))`` without overflow: ``log1p(exp(-|x|)) + max(-x, 0)``."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0.0)


@dispatching
def binary_cross_entropy_with_logits(x: Any, target: Any, weight: Any = 1.0,
                                     pos_weight: Any = 1.0, reduction: str = "mean") -> Any:
    """``w ((1 - t) x + (1 + (pw - 1) t) softplus(-x))``: BCE of ``sigmoid(x)``, stably."""
    log_weight = (pos_weight - 1.0) * target + 1.0
    return _reduce(weight * ((1.0 - target) * x + log_weight * _softplus_neg(x)), reduction)


_loss("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits,
      ("x", "target", "weight", "pos_weight"), ("reduction",),
      "x, target, weight=1.0, pos_weight=1.0, reduction='mean'",
      {"x": lambda x, target, weight, pos_weight, reduction:
          weight * (((pos_weight - 1.0) * target + 1.0) * sigmoid(x) - pos_weight * target),
       "target": lambda x, target, weight, pos_weight, reduction:
          weight * ((pos_weight - 1.0) * _softplus_neg(x) - x)},
      torch=("BinaryCrossEntropyWithLogitsBackward0", 2),
      pytorch=("sg.nn.functional.binary_cross_entropy_with_logits", "sg.nn.BCEWithLogitsLoss"),
      kinks="Overflow-free at any logit (softplus and sigmoid in stable forms, +-800 tested).")


# --- nll_loss ---------------------------------------------------------------------------
@dispatching
def nll_weights(target: Any, weight: Any, shape: Any, dtype: Any, axis: int,
                ignore_index: int) -> Any:
    """Zeros of ``shape`` holding ``weight[target]`` at each target's class along ``axis``
    (0 where the target is ``ignore_index``): ``nll_loss`` is ``-sum(W * x)``."""
    shape = tuple(shape)
    t = as_array(target)
    along = [1] * len(shape)
    along[axis] = shape[axis]
    classes = np.reshape(np.arange(shape[axis]), along)
    hit = (np.expand_dims(t, axis) == classes) & np.expand_dims(t != ignore_index, axis)
    w = np.ones(shape[axis], dtype=dtype) if weight is None else np.asarray(weight, dtype=dtype)
    return np.where(hit, np.reshape(w, along), 0.0).astype(dtype)


@dispatching
def nll_loss(x: Any, target: Any, weight: Any = None, axis: int = 1, reduction: str = "mean",
             ignore_index: int = -100) -> Any:
    """``-x[target]`` per sample, weighted; ``mean`` divides by the weights' sum."""
    x = as_array(x)
    w = nll_weights(target, weight, x.shape, x.dtype, axis, ignore_index)
    picked = np.sum(w * x, axis=axis)
    if reduction == "mean":
        return -np.sum(picked) / np.sum(w)
    return -_reduce(picked, reduction)


def _nll_vjp(g: Any, target: Any, weight: Any, x_shape: Any, x_dtype: Any, axis: int,
             reduction: str, ignore_index: int) -> Any:
    w = nll_weights(target, weight, x_shape, x_dtype, axis, ignore_index)
    if reduction == "mean":
        return -(g / np.sum(w)) * w
    if reduction == "sum":
        return -g * w
    return -np.expand_dims(g, axis) * w


defrule("nll_weights", nll_weights, inputs=("target", "weight"),
        params=("shape", "dtype", "axis", "ignore_index"), kind=NONDIFF)
defrule("nll_loss", nll_loss, inputs=("x", "target", "weight"),
        params=("axis", "reduction", "ignore_index"),
        form="x, target, weight=None, axis=1, reduction='mean', ignore_index=-100",
        vjp={"x": _nll_vjp},
        # linear in x: the tangent goes through the loss itself
        jvp={"x": lambda t, target, weight, axis, reduction, ignore_index:
             nll_loss(t, target, weight, axis, reduction, ignore_index)},
        torch=nll_loss_node, runtime_only=True,
        pytorch=("sg.nn.functional.nll_loss", "sg.nn.NLLLoss",
                 "sg.nn.functional.cross_entropy", "sg.nn.CrossEntropyLoss"),
        kinks=("Targets equal to ignore_index get gradient 0; 'mean' divides by the sum of "
               "the targets' class weights, so a batch with every target ignored gives NaN "
               "(as PyTorch). No derivative for the integer target."))


# --- gelu -------------------------------------------------------------------------------
_erfc = np.frompyfunc(math.erfc, 1, 1)


@dispatching
def ndtr(x: Any) -> Any:
    """The standard normal CDF ``Phi(x) = erfc(-x / sqrt 2) / 2`` (accurate in both tails)."""
    a = as_array(x)
    dtype = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    return np.asarray(0.5 * _erfc(-a / math.sqrt(2.0)), dtype=dtype)


defrule("ndtr", ndtr, inputs=("x",), kind=ELEMENTWISE,
        vjp={"x": lambda g, x: g * (np.exp(-0.5 * x * x) / _SQRT_2PI)})


def _tanh_inner(x: Any) -> Any:
    return _SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)


@dispatching
def gelu(x: Any, approximate: str = "none") -> Any:
    """``x Phi(x)``; with ``approximate='tanh'``, ``x (1 + tanh(...)) / 2`` (PyTorch's)."""
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(_tanh_inner(x)))
    return x * ndtr(x)


def _gelu_slope(x: Any, approximate: str) -> Any:
    if approximate == "tanh":
        th = np.tanh(_tanh_inner(x))
        dinner = _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_C * x * x)
        return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * dinner
    return ndtr(x) + x * (np.exp(-0.5 * x * x) / _SQRT_2PI)


defrule("gelu", gelu, inputs=("x",), params=("approximate",), kind=ELEMENTWISE,
        form="x, approximate='none'",
        vjp={"x": lambda g, x, approximate: g * _gelu_slope(x, approximate)},
        torch="GeluBackward0", runtime_only=True,
        pytorch=("sg.nn.functional.gelu", "sg.nn.GELU"))


# --- addmm: linear with a bias -------------------------------------------------------------
@dispatching
def addmm(input: Any, mat1: Any, mat2: Any) -> Any:  # noqa: A002 (PyTorch's name)
    """``input + mat1 @ mat2`` for 2-D ``mat1``, ``mat2`` (``input`` broadcasts)."""
    return np.add(input, np.matmul(mat1, mat2))


defrule("addmm", addmm, inputs=("input", "mat1", "mat2"), broadcasts=True,
        vjp={"input": lambda g: g,
             "mat1": lambda g, mat2: np.matmul(g, np.transpose(mat2)),
             "mat2": lambda g, mat1: np.matmul(np.transpose(mat1), g)},
        jvp={"input": lambda t, out: t + np.zeros_like(out),
             "mat1": lambda t, mat2: np.matmul(t, mat2),
             "mat2": lambda t, mat1: np.matmul(mat1, t)},
        torch=("AddmmBackward0", 3), runtime_only=True,
        pytorch=("sg.nn.functional.linear", "sg.nn.Linear"))
