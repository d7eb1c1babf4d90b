"""Namers of PyTorch's backward nodes, for the ``torch=`` field of rules whose node name
depends on the call form (``Rule.torch``; a fixed name is a plain string there).

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

Namer = Callable[..., tuple[str, int]]


def by_axis(full: str, along: str) -> Namer:
    """``x.sum()`` is ``SumBackward0``, ``x.sum(dim)`` is ``SumBackward1``."""

    def namer(axis: Any = None, **_: Any) -> tuple[str, int]:
        return (full if axis is None else along), 1

    return namer


def subtract_node(tensors: tuple[bool, ...] = (True, True), **_: Any) -> tuple[str, int]:
    if tensors and not tensors[0]:
        return "RsubBackward1", 1  # 3 - x
    return "SubBackward0", 2


def scalar_form(tensor: str, scalar: str) -> Namer:
    """``a * b`` of two tensors (or a Python number: PyTorch wraps it) is ``MulBackward0``;
    ATen's ``mul(Tensor, Scalar)``, reached from PyTorch's own composites (``cross_entropy``'s
    ``/ n``, label smoothing's ``(1 - eps) *``), is ``MulBackward1`` with one edge: the
    runtime records those with ``form="scalar"``."""

    def namer(form: str | None = None, **_: Any) -> tuple[str, int]:
        return (scalar, 1) if form == "scalar" else (tensor, 2)

    return namer


def power_node(tensors: tuple[bool, ...] = (True, True), **_: Any) -> tuple[str, int]:
    if tensors == (True, False):
        return "PowBackward0", 1  # x ** 2
    if tensors == (False, True):
        return "PowBackward2", 1  # 2 ** x
    return "PowBackward1", 2


def clip_node(tensors: tuple[bool, ...] = (True, False, False), **_: Any) -> tuple[str, int]:
    if any(tensors[1:]):
        return "ClampBackward0", 3
    return "ClampBackward1", 1


def matmul_node(ndims: tuple[int, ...] = (2, 2), **_: Any) -> tuple[str, int]:
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


def transpose_node(form: str | None = None, **_: Any) -> tuple[str, int]:
    names = {"t": "TBackward0", "transpose": "TransposeBackward0"}
    return names.get(form or "", "PermuteBackward0"), 1


def squeeze_node(axis: Any = None, **_: Any) -> tuple[str, int]:
    if axis is None:
        return "SqueezeBackward0", 1
    return ("SqueezeBackward2" if isinstance(axis, (tuple, list)) else "SqueezeBackward1"), 1


def fill_node(form: str | None = None, tensors: tuple[bool, ...] = (True, False),
          **_: Any) -> tuple[str, int]:
    if form == "zero_":
        return "ZeroBackward0", 1
    return ("FillBackward3", 2) if len(tensors) > 1 and tensors[1] else ("FillBackward2", 1)


def round_node(form: str | None = None, **_: Any) -> tuple[str, int]:
    """``x.round()`` is ``RoundBackward0``; with ``decimals=`` given, ``RoundBackward1``."""
    return ("RoundBackward1" if form == "decimals" else "RoundBackward0"), 1


def max_min_node(stem: str) -> Namer:
    """PyTorch: full ``x.max()`` is ``MaxBackward1``; along a dim, ``MaxBackward0``."""

    def namer(axis: Any = None, **_: Any) -> tuple[str, int]:
        return f"{stem}Backward{1 if axis is None else 0}", 1

    return namer


def nll_loss_node(ndims: tuple[int, ...] = (2,), **_: Any) -> tuple[str, int]:
    """PyTorch runs spatial inputs (``(N, C, H, W)``) through ``nll_loss2d``."""
    return ("NllLoss2DBackward0" if ndims and ndims[0] >= 3 else "NllLossBackward0"), 1


# multi
def split_node(form: str | None = None, **_: Any) -> tuple[str, int]:
    """``t.split(2)`` / ``t.chunk(2)`` / ``np.split(t, 3)`` (a count) are ``SplitBackward0``;
    ``t.split([1, 2])`` and split points (form ``"sizes"``) are ``SplitWithSizesBackward0``."""
    return ("SplitWithSizesBackward0" if form == "sizes" else "SplitBackward0"), 1


# linalg
def matrix_power_node(n: int = 2, **_: Any) -> tuple[str, int]:
    """PyTorch composes ``matrix_power`` from matmuls; its last node names the call."""
    if n == 1:
        return "CloneBackward0", 1
    if n == 0:
        return "CopyBackwards", 1
    return "MmBackward0", 1
