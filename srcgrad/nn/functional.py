"""``sg.nn.functional``: PyTorch's ``torch.nn.functional`` on the runtime's Tensors.

Sits on the runtime (``tensor``), never the compiler. Where PyTorch records one fused
node, this records the rule of that name from :mod:`srcgrad.rules.nn` (``MseLossBackward0``,
``NllLossBackward0``, ``GeluBackward0``, ``AddmmBackward0``...); where PyTorch composes
ops (``l1_loss``, ``cross_entropy`` with probabilities, label smoothing, ``dropout``), this
composes the same ops, so ``grad_fn`` chains read as PyTorch's. Argument checks raise
PyTorch's exception types with its wording.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..rules import rule_named
from ..tensor import factories
from ..tensor.functions import as_tensor
from ..tensor.ops import record
from ..tensor.tensor import Tensor

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "dropout",
    "gelu", "l1_loss", "linear", "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid",
    "smooth_l1_loss", "softmax", "tanh",
]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """PyTorch's legacy ``size_average``/``reduce`` flags folded into ``reduction``."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(t: Tensor, reduction: str) -> Tensor:
    return t.mean() if reduction == "mean" else t.sum() if reduction == "sum" else t


def _same_size(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    """PyTorch warns, then broadcasts both (``ExpandBackward0``), when the sizes differ."""
    if input.shape == target.shape:
        return input, target
    warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                  f"({input.size()}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.", stacklevel=3)
    shape = np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    return input.expand(*shape), target.expand(*shape)


def _floats(input: Any, target: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    input = as_tensor(input)
    return input, as_tensor(target, dtype=input.dtype if not isinstance(target, Tensor) else None)


# --- layers and activations --------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """``input @ weight.T + bias``: ``AddmmBackward0`` for 2-D input with a bias, as PyTorch
    (other ranks are viewed to 2-D and back, ``ViewBackward0``)."""
    input, weight = as_tensor(input), as_tensor(weight)
    wt = weight.t()
    if input.ndim == 2:
        if bias is None:
            return input.matmul(wt)
        return record(rule_named("addmm"), (bias, input, wt))
    rows = input.reshape(-1, input.shape[-1]) if input.ndim else input
    out = rows.matmul(wt) if bias is None else record(rule_named("addmm"), (bias, rows, wt))
    return out.reshape(*input.shape[:-1], weight.shape[0])


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return as_tensor(input).relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return as_tensor(input).sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return as_tensor(input).tanh()


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """``x Phi(x)`` (``approximate='none'``) or PyTorch's tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    return record(rule_named("gelu"), (as_tensor(input),), {"approximate": approximate})


def _softmax_dim(name: str, ndim: int, dim: int | None) -> int:
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: Any = None) -> Tensor:
    input = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return input.softmax(_softmax_dim("softmax", input.ndim, dim))


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
                dtype: Any = None) -> Tensor:
    input = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return input.log_softmax(_softmax_dim("log_softmax", input.ndim, dim))


def dropout(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p``, scale the rest by ``1 / (1 - p)``.

    The mask comes from the generator ``sg.manual_seed`` seeds (the one ``sg.rand`` draws
    from), so a seeded program drops the same elements every run; the graph is PyTorch's
    ``MulBackward0`` by a constant mask.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    input = as_tensor(input)
    if not training or p == 0.0:
        return input
    keep = factories.generator().random(tuple(input.shape)) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = Tensor._wrap((keep * scale).astype(input._data.dtype))
    return input * mask


# --- regression losses ---------------------------------------------------------------------
def _weighted(errors: Tensor, weight: Any, input: Tensor, reduction: str) -> Tensor:  # noqa: A002
    """PyTorch 2.13's elementwise ``weight`` for ``mse_loss``/``l1_loss`` (composed)."""
    weight = as_tensor(weight)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = errors * weight
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    return _reduce(weighted, reduction)


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
             reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    """Mean squared error: ``MseLossBackward0``."""
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _same_size(*_floats(input, target))
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, reduction)
    return record(rule_named("mse_loss"), (input, target), {"reduction": reduction})


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
            reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    """Mean absolute error, composed as PyTorch does: ``MeanBackward0`` over ``AbsBackward0``."""
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _same_size(*_floats(input, target))
    errors = (input - target).abs()
    if weight is not None:
        return _weighted(errors, weight, input, reduction)
    return _reduce(errors, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Huber-like loss: ``SmoothL1LossBackward0``; ``beta == 0`` is ``l1_loss``."""
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _same_size(*_floats(input, target))
    return record(rule_named("smooth_l1_loss"), (input, target),
                  {"reduction": reduction, "beta": float(beta)})


# --- classification losses ---------------------------------------------------------------
def _class_target(input: Tensor, target: Any) -> Tensor:  # noqa: A002
    target = as_tensor(target)
    if target.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.name}")
    want = tuple(input.shape[:1] + input.shape[2:]) if input.ndim >= 2 else ()
    if tuple(target.shape) != want:
        raise ValueError(f"Expected target size {want}, got {tuple(target.shape)}")
    return target


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices: ``NllLossBackward0``."""
    reduction = _reduction(size_average, reduce, reduction)
    input = as_tensor(input)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    target = _class_target(input, target)
    axis = 1 if input.ndim >= 2 else 0
    classes = input.shape[axis]
    t = target._data
    bad = (t != ignore_index) & ((t < 0) | (t >= classes))
    if np.any(bad):
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
    if weight is not None:
        weight = as_tensor(weight)
        if tuple(weight.shape) != (classes,):
            raise RuntimeError(f"weight tensor should be defined either for all {classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
    params = {"axis": axis, "reduction": reduction, "ignore_index": int(ignore_index)}
    if input.ndim in (1, 2, 4):
        return record(rule_named("nll_loss"), (input, target, weight), params)
    # PyTorch views other spatial ranks as (N, C, -1, 1) for nll_loss2d, and back
    n = input.shape[0]
    out = record(rule_named("nll_loss"), (input.reshape(n, classes, -1, 1),
                                          target.reshape(n, -1, 1), weight), params)
    return out.reshape(*target.shape) if reduction == "none" else out


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input))`` for class indices (``NllLossBackward0`` over
    ``LogSoftmaxBackward0``); for class probabilities, PyTorch's composition (its mean is
    ``DivBackward1``). ``label_smoothing`` mixes in the uniform distribution as PyTorch."""
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    input = as_tensor(input)
    axis = 1 if input.ndim >= 2 else 0
    logp = input.log_softmax(axis)
    target = as_tensor(target)
    classes = input.shape[axis]
    weight_b = None
    if weight is not None:
        weight = as_tensor(weight)
        along = [1] * input.ndim
        along[axis] = classes
        weight_b = weight.reshape(*along)
    if target.dtype.is_floating_point:
        return _cross_entropy_probs(logp, target, weight_b, axis, classes, reduction,
                                    label_smoothing)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    # PyTorch's label smoothing: the mean of -log p over classes, masked and normalised as
    # the nll term is
    smooth = -(logp if weight_b is None else logp * weight_b).sum(axis)
    kept = target._data != ignore_index
    smooth = smooth * Tensor._wrap(kept.astype(logp._data.dtype))
    if reduction == "mean":
        if weight is None:
            denom = float(kept.sum())
        else:
            denom = float(weight._data[target._data[kept]].sum())
        smooth = record(rule_named("divide"), (smooth.sum(), denom), form="scalar")
    elif reduction == "sum":
        smooth = smooth.sum()
    return (record(rule_named("multiply"), (nll, 1.0 - label_smoothing), form="scalar")
            + record(rule_named("multiply"), (smooth, label_smoothing / classes),
                     form="scalar"))


def _cross_entropy_probs(logp: Tensor, target: Tensor, weight_b: Tensor | None, axis: int,
                         classes: int, reduction: str, label_smoothing: float) -> Tensor:
    if target.shape != logp.shape:
        raise RuntimeError(f"Expected target of shape {tuple(logp.shape)} for class "
                           f"probabilities, got {tuple(target.shape)}")
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / classes
    terms = logp * target if weight_b is None else logp * target * weight_b
    if reduction == "none":
        return -terms.sum(axis)
    total = -terms.sum()
    if reduction == "sum":
        return total
    return record(rule_named("divide"), (total, float(logp.numel() // classes)), form="scalar")


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """BCE of probabilities: ``BinaryCrossEntropyBackward0`` (logs clamped at -100)."""
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _floats(input, target)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    x = input._data
    if np.any((x < 0) | (x > 1)) or np.any(np.isnan(x)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    w: Any = 1.0 if weight is None else as_tensor(weight)
    return record(rule_named("binary_cross_entropy"), (input, target, w),
                  {"reduction": reduction})


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """BCE of ``sigmoid(input)``, computed stably: ``BinaryCrossEntropyWithLogitsBackward0``."""
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _floats(input, target)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    w: Any = 1.0 if weight is None else as_tensor(weight)
    pw: Any = 1.0 if pos_weight is None else as_tensor(pos_weight)
    return record(rule_named("binary_cross_entropy_with_logits"), (input, target, w, pw),
                  {"reduction": reduction})
