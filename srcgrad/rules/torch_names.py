"""PyTorch's backward-node names, per rule and call form (``Rule.node_name``).

The runtime names each node as PyTorch would for the same call, so ``type(t.grad_fn)``
and ``next_functions`` read the same in both. A namer receives the call's form:

- ``tensors``: per rule input, is it a Tensor (``False`` for a Python number);
- ``ndims``: per rule input, its number of dimensions;
- ``form``: the surface spelling when several share a rule (``"t"``, ``"T"``,
  ``"transpose"``, ``"zero_"``), else ``None``;
- the call's static parameters by name (``axis=None`` for ``x.sum()``);

and returns ``(name, arity)``: the class name and the length of ``next_functions``
(an input without a derivative, such as ``where``'s condition, never has an edge; when
the arity is smaller than the number of differentiable inputs, PyTorch dropped the
constants' edges, as for ``3 - x``). Names were checked against torch 2.x.

A zero-derivative rule (``kind=NONDIFF``) with a name here is one PyTorch records anyway:
``sign floor ceil trunc round`` give a float result that requires grad and a node whose
gradient is zero (``FloorBackward0``). NONDIFF rules without a name (comparisons,
``argmax``, factories) record nothing, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .registry import RULES

Namer = Callable[..., tuple[str, int]]


def _fixed(name: str, arity: int | None = None) -> Namer:
    def namer(tensors: tuple[bool, ...] = (), **_: Any) -> tuple[str, int]:
        return name, len(tensors) if arity is None else arity

    return namer


def _by_axis(full: str, along: str) -> Namer:
    """``x.sum()`` is ``SumBackward0``, ``x.sum(dim)`` is ``SumBackward1``."""

    def namer(axis: Any = None, **_: Any) -> tuple[str, int]:
        return (full if axis is None else along), 1

    return namer


def _subtract(tensors: tuple[bool, ...] = (True, True), **_: Any) -> tuple[str, int]:
    if tensors and not tensors[0]:
        return "RsubBackward1", 1  # 3 - x
    return "SubBackward0", 2


def _scalar_form(tensor: str, scalar: str) -> Namer:
    """``a * b`` of two tensors (or a Python number: PyTorch wraps it) is ``MulBackward0``;
    ATen's ``mul(Tensor, Scalar)``, reached from PyTorch's own composites (``cross_entropy``'s
    ``/ n``, label smoothing's ``(1 - eps) *``), is ``MulBackward1`` with one edge: the
    runtime records those with ``form="scalar"``."""

    def namer(form: str | None = None, **_: Any) -> tuple[str, int]:
        return (scalar, 1) if form == "scalar" else (tensor, 2)

    return namer


def _power(tensors: tuple[bool, ...] = (True, True), **_: Any) -> tuple[str, int]:
    if tensors == (True, False):
        return "PowBackward0", 1  # x ** 2
    if tensors == (False, True):
        return "PowBackward2", 1  # 2 ** x
    return "PowBackward1", 2


def _clip(tensors: tuple[bool, ...] = (True, False, False), **_: Any) -> tuple[str, int]:
    if any(tensors[1:]):
        return "ClampBackward0", 3
    return "ClampBackward1", 1


def _matmul(ndims: tuple[int, ...] = (2, 2), **_: Any) -> tuple[str, int]:
    a, b = (ndims + (2, 2))[:2]
    if a == 2 and b == 2:
        return "MmBackward0", 2
    if a == 2 and b == 1:
        return "MvBackward0", 2
    if a == 1 and b == 1:
        return "DotBackward0", 2
    if a > 2 and b > 2:
        return "BmmBackward0", 2
    return "MatmulBackward0", 2  # PyTorch folds these into views around Mm/Bmm


def _transpose(form: str | None = None, **_: Any) -> tuple[str, int]:
    names = {"t": "TBackward0", "transpose": "TransposeBackward0"}
    return names.get(form or "", "PermuteBackward0"), 1


def _squeeze(axis: Any = None, **_: Any) -> tuple[str, int]:
    if axis is None:
        return "SqueezeBackward0", 1
    return ("SqueezeBackward2" if isinstance(axis, (tuple, list)) else "SqueezeBackward1"), 1


def _fill(form: str | None = None, tensors: tuple[bool, ...] = (True, False),
          **_: Any) -> tuple[str, int]:
    if form == "zero_":
        return "ZeroBackward0", 1
    return ("FillBackward3", 2) if len(tensors) > 1 and tensors[1] else ("FillBackward2", 1)


def _round(form: str | None = None, **_: Any) -> tuple[str, int]:
    """``x.round()`` is ``RoundBackward0``; with ``decimals=`` given, ``RoundBackward1``."""
    return ("RoundBackward1" if form == "decimals" else "RoundBackward0"), 1


def _max_min(stem: str) -> Namer:
    """PyTorch: full ``x.max()`` is ``MaxBackward1``; along a dim, ``MaxBackward0``."""

    def namer(axis: Any = None, **_: Any) -> tuple[str, int]:
        return f"{stem}Backward{1 if axis is None else 0}", 1

    return namer


def _nll_loss(ndims: tuple[int, ...] = (2,), **_: Any) -> tuple[str, int]:
    """PyTorch runs spatial inputs (``(N, C, H, W)``) through ``nll_loss2d``."""
    return ("NllLoss2DBackward0" if ndims and ndims[0] >= 3 else "NllLossBackward0"), 1


NAMERS: dict[str, Namer] = {
    # elementwise
    "add": _fixed("AddBackward0", 2),
    "subtract": _subtract,
    "multiply": _scalar_form("MulBackward0", "MulBackward1"),
    "divide": _scalar_form("DivBackward0", "DivBackward1"),
    "power": _power,
    "negative": _fixed("NegBackward0"),
    "positive": _fixed("PositiveBackward0"),
    "reciprocal": _fixed("ReciprocalBackward0"),
    "square": _fixed("PowBackward0"),
    "sqrt": _fixed("SqrtBackward0"),
    "absolute": _fixed("AbsBackward0"),
    "exp": _fixed("ExpBackward0"),
    "expm1": _fixed("Expm1Backward0"),
    "exp2": _fixed("Exp2Backward0"),
    "log": _fixed("LogBackward0"),
    "log1p": _fixed("Log1PBackward0"),
    "log2": _fixed("Log2Backward0"),
    "log10": _fixed("Log10Backward0"),
    "sin": _fixed("SinBackward0"),
    "cos": _fixed("CosBackward0"),
    "tan": _fixed("TanBackward0"),
    "arcsin": _fixed("AsinBackward0"),
    "arccos": _fixed("AcosBackward0"),
    "arctan": _fixed("AtanBackward0"),
    "sinh": _fixed("SinhBackward0"),
    "cosh": _fixed("CoshBackward0"),
    "tanh": _fixed("TanhBackward0"),
    "arcsinh": _fixed("AsinhBackward0"),
    "arccosh": _fixed("AcoshBackward0"),
    "arctanh": _fixed("AtanhBackward0"),
    "arctan2": _fixed("Atan2Backward0", 2),
    "hypot": _fixed("HypotBackward0", 2),
    "logaddexp": _fixed("LogaddexpBackward0", 2),
    "maximum": _fixed("MaximumBackward0", 2),
    "minimum": _fixed("MinimumBackward0", 2),
    "remainder": _fixed("RemainderBackward0", 2),
    "clip": _clip,
    "where": _fixed("WhereBackward0", 2),
    # zero-derivative ops PyTorch records (a node with a zero gradient)
    "sign": _fixed("SignBackward0", 1),
    "floor": _fixed("FloorBackward0", 1),
    "ceil": _fixed("CeilBackward0", 1),
    "trunc": _fixed("TruncBackward0", 1),
    "round": _round,
    "rint": _fixed("RoundBackward0", 1),  # torch.round rounds half to even, as np.rint
    # runtime operations
    "relu": _fixed("ReluBackward0"),
    "sigmoid": _fixed("SigmoidBackward0"),
    "softmax": _fixed("SoftmaxBackward0"),
    "log_softmax": _fixed("LogSoftmaxBackward0"),
    "select": _fixed("SelectBackward0"),
    "slice": _fixed("SliceBackward0"),
    "getitem": _fixed("IndexBackward0"),
    "index_put": _fixed("IndexPutBackward0", 2),
    "copy_into": _fixed("CopyBackwards", 2),
    "fill": _fill,
    "take_flat": _fixed("AsStridedBackward0"),
    # reductions
    "sum": _by_axis("SumBackward0", "SumBackward1"),
    "mean": _by_axis("MeanBackward0", "MeanBackward1"),
    "prod": _by_axis("ProdBackward0", "ProdBackward1"),
    "amax": _fixed("AmaxBackward0", 1),
    "amin": _fixed("AminBackward0", 1),
    "max": _max_min("Max"),
    "min": _max_min("Min"),
    "var": _fixed("VarBackward0", 1),
    "std": _fixed("StdBackward0", 1),
    "cumsum": _fixed("CumsumBackward0", 1),
    "norm": _fixed("LinalgVectorNormBackward0", 1),
    # products
    "matmul": _matmul,
    "dot": _matmul,
    "outer": _fixed("MulBackward0", 2),
    # shape
    "reshape": _fixed("ViewBackward0", 1),
    "ravel": _fixed("ViewBackward0", 1),
    "expand_dims": _fixed("UnsqueezeBackward0", 1),
    "squeeze": _squeeze,
    "transpose": _transpose,
    "moveaxis": _fixed("PermuteBackward0", 1),
    "swapaxes": _fixed("TransposeBackward0", 1),
    "broadcast_to": _fixed("ExpandBackward0", 1),
    "flip": _fixed("FlipBackward0", 1),
    "tile": _fixed("RepeatBackward0", 1),
    "repeat": _fixed("RepeatInterleaveBackward0", 1),
    "copy": _fixed("CloneBackward0", 1),
    "astype": _fixed("ToCopyBackward0", 1),
    "concatenate": _fixed("CatBackward0"),
    "stack": _fixed("StackBackward0"),
    # linear algebra
    "inv": _fixed("LinalgInvExBackward0", 1),
    "solve": _fixed("LinalgSolveExBackward0", 2),
    "det": _fixed("LinalgDetBackward0", 1),
    "trace": _fixed("TraceBackward0", 1),
    "diag": _fixed("DiagEmbedBackward0", 1),
    # nn
    "mse_loss": _fixed("MseLossBackward0", 2),
    "smooth_l1_loss": _fixed("SmoothL1LossBackward0", 2),
    "binary_cross_entropy": _fixed("BinaryCrossEntropyBackward0", 2),
    "binary_cross_entropy_with_logits": _fixed("BinaryCrossEntropyWithLogitsBackward0", 2),
    "nll_loss": _nll_loss,
    "gelu": _fixed("GeluBackward0", 1),
    "addmm": _fixed("AddmmBackward0", 3),
}


def install() -> None:
    """Set ``node_name`` on every rule that has a PyTorch name here."""
    for name, namer in NAMERS.items():
        rule = RULES.get(name)
        if rule is not None:
            rule.node_name = namer


install()
