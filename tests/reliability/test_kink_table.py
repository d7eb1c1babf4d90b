"""DESIGN.md's "Numerical conventions at kinks": the one table of every kink and special
value, checked exactly in every place srcgrad differentiates:

- ``rules``: the rule table itself (the function traced on :mod:`tests.rules.recording`'s
  array-like and reversed with the table's VJPs, no compiler or runtime in between);
- ``compiler`` / ``compiler-unoptimized``: ``sg.grad`` (reverse mode);
- ``compiler-forward``: ``sg.jvp`` along each basis direction, one element at a time;
- ``runtime``: ``backward()`` on Tensors (NumPy's dispatch records the NumPy spelling);
- ``torch`` / ``torch-forward``: PyTorch itself (reverse, and forward mode by
  ``torch.func.jvp``), when it is installed; skipped without it;
- second order, for rows with ``second`` (each argument's Hessian diagonal):
  ``compiler-second`` (``sg.hessian``), ``runtime-second``
  (``srcgrad.autograd.functional.hessian``) and ``torch-second``.

Finite differences never land on these points, so the expected gradients are written into
the table: they are what PyTorch 2.x gives, re-derived live by the ``torch`` columns. A row
where srcgrad deliberately gives something else says so in ``differs_from_torch`` (with the
reason) and writes down what PyTorch gives (``torch_grads``), which the ``torch`` column
checks, so the difference stays real and documented. Forward mode sums ``J e_j`` over the
whole output, so an infinite partial meets a zero tangent (``inf * 0 = NaN``) where reverse
mode never multiplies them: ``forward`` holds those rows' forward-mode numbers (PyTorch's
forward mode gives the same). ``PENDING`` lists the known bugs as strict xfails naming
their owner, so a fix turns them red until it is removed there.

Each row's function is a module-level function (the compiler reads its source) returning a
scalar; ``runtime`` is the runtime's spelling when it differs (``relu``); ``only`` limits a
row to the columns it can run in, with the reason.

``where`` note: the untaken branch's adjoint reaches the argument as ``0 * inf`` = NaN, in
srcgrad as in PyTorch; keeping the untaken branch finite inside the function is the fix
(row ``where-fixed``).

``SECOND_ORDER`` holds the second derivatives at kinks, through the compiler (``sg.hessian``
and forward-over-reverse ``sg.jvp(sg.grad(f))``) and the runtime (``create_graph=True``).
Its rows marked ``differs_from_torch`` are srcgrad's deliberate differences from PyTorch:
there the ``torch`` column checks that PyTorch still gives what the row says it gives.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import RULES
from tests.rules.recording import Recorded, Tape, backprop

INF, NAN = math.inf, math.nan


def abs_(x):
    return np.sum(np.abs(x))


def relu_as_maximum(x):
    return np.sum(np.maximum(x, 0.0))


def relu_runtime(x):
    return x.relu().sum()


def maximum_tie(x, y):
    return np.sum(np.maximum(x, y))


def minimum_tie(x, y):
    return np.sum(np.minimum(x, y))


def max_full(x):
    return np.max(x)


def min_full(x):
    return np.min(x)


def max_axis(x):
    return np.sum(np.max(x, axis=1))


def min_axis(x):
    return np.sum(np.min(x, axis=0))


def clip_bounds(x):
    return np.sum(np.clip(x, -1.0, 1.0))


def sqrt_(x):
    return np.sum(np.sqrt(x))


def norm_full(x):
    return np.linalg.norm(x)


def norm_axis(x):
    return np.sum(np.linalg.norm(x, axis=1))


def where_nan(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def where_fixed(x):
    return np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0))


def prod_full(x):
    return np.prod(x)


def prod_axis(x):
    return np.sum(np.prod(x, axis=1))


def var_full(x):
    return np.var(x)


def std_full(x):
    return np.std(x)


def std_rows(x):
    return np.sum(np.std(x, axis=1, ddof=1))


def power_zero_exponent(x):
    return np.sum(x ** 0.0)


def power_square(x):
    return np.sum(x ** 2.0)


def power_both(x, y):
    return np.sum(np.power(x, y))


def logaddexp_(x, y):
    return np.sum(np.logaddexp(x, y))


def softplus_as_logaddexp(x):
    return np.sum(np.logaddexp(x, 0.0))


def sigmoid_rule(x):
    return np.sum(RULES["sigmoid"].impl(x))


def log_softmax_rule(x):
    return np.sum(RULES["log_softmax"].impl(x) * np.array([1.0, 0.0, 0.0]))


def bce_with_logits_rule(x):
    return RULES["binary_cross_entropy_with_logits"].impl(x, np.array([1.0, 0.0, 0.5]),
                                                          reduction="sum")


def var_no_dof(x):
    return np.var(x, ddof=1)


def std_no_dof(x):
    return np.std(x, ddof=1)


def var_no_dof_axis(x):
    return np.sum(np.var(x, axis=1, ddof=1))


def max_times_min(x):
    return np.max(x) * np.min(x)


def max_axis_inf_cotangent(x):
    return np.sum(np.max(x, axis=1) * INF)


def min_axis_inf_cotangent(x):
    return np.sum(np.min(x, axis=0) * -INF)


def max_nan(x):
    return np.max(x)


def min_nan_axis(x):
    return np.sum(np.min(x, axis=1))


# runtime operations with no NumPy spelling: the rule's own implementation, which NumPy's
# dispatch hands to the runtime's Tensor and to the rules' recording array alike
def relu_rule(x):
    return np.sum(RULES["relu"].impl(x))


def amax_axis(x):
    return np.sum(RULES["amax"].impl(x, axis=1))


def amin_full(x):
    return RULES["amin"].impl(x)


@dataclass
class Row:
    label: str
    f: Callable[..., Any]  # NumPy spelling, returns a scalar
    args: tuple[Any, ...]
    grads: tuple[Any, ...]  # srcgrad's d f / d args (= PyTorch's unless differs_from_torch)
    torch_f: Callable[..., Any]
    runtime: Callable[..., Any] | None = None  # the runtime's spelling when it differs
    forward: tuple[Any, ...] | None = None  # forward mode's numbers when not ``grads``
    differs_from_torch: str | None = None  # why srcgrad deliberately differs from PyTorch
    torch_grads: tuple[Any, ...] | None = None  # what PyTorch's reverse mode gives then ...
    torch_forward: tuple[Any, ...] | None = None  # ... and its forward mode
    # second order, for rows that have one: the diagonal of each argument's Hessian block,
    # d^2 f / d x_j^2, shaped like the argument (srcgrad's numbers; PyTorch's if different)
    second: tuple[Any, ...] | None = None
    torch_second: tuple[Any, ...] | None = None
    only: tuple[str, ...] | None = None  # the columns this row can run in ...
    why_only: str = ""  # ... and why not the others

    def __post_init__(self) -> None:
        numbers = any(v is not None for v in (self.torch_grads, self.torch_forward,
                                                self.torch_second))
        assert self.second is not None or self.torch_second is None, self.label
        assert (self.differs_from_torch is not None) == numbers, (
            f"{self.label}: a deliberate difference from PyTorch needs both its reason and "
            "PyTorch's numbers")
        assert (self.only is None) == (not self.why_only), self.label

    def runtime_f(self) -> Callable[..., Any]:
        return self.runtime or self.f


def _torch(name: str) -> Callable[..., Any]:
    """A torch function by name, looked up only when torch is there."""
    def call(*args: Any, **kwargs: Any) -> Any:
        import torch
        obj: Any = torch
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj(*args, **kwargs)
    return call


RUNTIME_ONLY = ("rules", "runtime", "torch", "torch-forward")

_NORM_SECOND = ("second order at 0: srcgrad's norm rule gives 0 (its 0-at-0 branch is a "
                "constant); PyTorch's masked division leaks NaN, as in 0 ** y. Found by this "
                "table; DESIGN.md does not decide it yet")

_LOGADDEXP_SECOND = ("second order where one argument is far below the other: srcgrad's "
                     "d/dx = exp(x - logaddexp(x, y)) never overflows, so its derivative is the "
                     "true 0; PyTorch's 1 / (1 + exp(y - x)) overflows and its derivative is "
                     "inf / inf = NaN")

TABLE = [
    Row("abs", abs_, ([0.0, -1.0, 2.0],), ([0.0, -1.0, 1.0],), lambda x: x.abs().sum(),
        second=([0.0, 0.0, 0.0],)),
    Row("relu", relu_rule, ([0.0, -1.0, 2.0],), ([0.0, 0.0, 1.0],), lambda x: x.relu().sum(),
        runtime=relu_runtime, only=RUNTIME_ONLY,
        why_only="a Tensor method; the compiler's spelling is row relu-as-maximum(x, 0)",
        second=([0.0, 0.0, 0.0],)),
    Row("relu-as-maximum(x, 0)", relu_as_maximum, ([0.0, -1.0, 2.0],), ([0.5, 0.0, 1.0],),
        lambda x: _torch("maximum")(x, _torch("zeros_like")(x)).sum(),
        second=([0.0, 0.0, 0.0],)),
    Row("maximum-tie", maximum_tie, ([1.0, 2.0], [1.0, 1.0]), ([0.5, 1.0], [0.5, 0.0]),
        lambda x, y: _torch("maximum")(x, y).sum(),
        second=([0.0, 0.0], [0.0, 0.0],)),
    Row("minimum-tie", minimum_tie, ([1.0, 2.0], [1.0, 1.0]), ([0.5, 0.0], [0.5, 1.0]),
        lambda x, y: _torch("minimum")(x, y).sum(),
        second=([0.0, 0.0], [0.0, 0.0],)),
    Row("max-full-ties", max_full, ([1.0, 3.0, 3.0, 2.0],), ([0.0, 0.5, 0.5, 0.0],),
        lambda x: x.max(),
        second=([0.0, 0.0, 0.0, 0.0],)),
    Row("min-full-ties", min_full, ([1.0, 0.0, 0.0, 2.0],), ([0.0, 0.5, 0.5, 0.0],),
        lambda x: x.min(),
        second=([0.0, 0.0, 0.0, 0.0],)),
    Row("max-axis-ties", max_axis, ([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]],),
        ([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],), lambda x: x.max(dim=1).values.sum(),
        second=([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],)),
    Row("min-axis-ties", min_axis, ([[1.0, 3.0], [1.0, 2.0]],), ([[1.0, 0.0], [0.0, 1.0]],),
        lambda x: x.min(dim=0).values.sum(),
        second=([[0.0, 0.0], [0.0, 0.0]],)),
    Row("amax-axis-ties", amax_axis, ([[1.0, 3.0, 3.0], [2.0, -INF, 2.0]],),
        ([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]],), lambda x: x.amax(dim=1).sum(),
        only=RUNTIME_ONLY, why_only="Tensor.amax has no NumPy spelling of its own",
        second=([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],)),
    Row("amin-full-ties", amin_full, ([[1.0, 3.0], [1.0, 2.0]],), ([[0.5, 0.0], [0.5, 0.0]],),
        lambda x: x.amin(), only=RUNTIME_ONLY,
        why_only="Tensor.amin has no NumPy spelling of its own",
        second=([[0.0, 0.0], [0.0, 0.0]],)),
    Row("max-nan", max_nan, ([1.0, NAN, 2.0],), ([0.0, 1.0, 0.0],), lambda x: x.max(),
        differs_from_torch="forward mode: PyTorch's tangent of max over a NaN is NaN along "
        "every direction; srcgrad's follows the element max returns (the NaN), as both "
        "reverse modes do", torch_forward=([NAN, NAN, NAN],),
        second=([0.0, 0.0, 0.0],)),
    Row("min-nan-axis", min_nan_axis, ([[1.0, NAN, NAN], [3.0, 2.0, 4.0]],),
        ([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]],), lambda x: x.min(dim=1).values.sum(),
        second=([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],)),
    Row("max-times-min-inf", max_times_min, ([1.0, INF, -INF],), ([0.0, -INF, INF],),
        lambda x: x.max() * x.min(), forward=([NAN, NAN, NAN],),
        second=([0.0, 0.0, 0.0],)),
    Row("max-axis-inf-cotangent", max_axis_inf_cotangent,
        ([[1.0, 2.0, 0.0], [-INF, INF, 5.0]],), ([[0.0, INF, 0.0], [0.0, INF, 0.0]],),
        lambda x: (x.max(dim=1).values * INF).sum(), forward=([[NAN] * 3, [NAN] * 3],),
        second=([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],)),
    Row("min-axis-inf-cotangent", min_axis_inf_cotangent, ([[1.0, -INF], [0.0, 2.0]],),
        ([[0.0, -INF], [-INF, 0.0]],), lambda x: (x.min(dim=0).values * -INF).sum(),
        forward=([[NAN, NAN], [NAN, NAN]],),
        second=([[0.0, 0.0], [0.0, 0.0]],)),
    Row("clip-at-both-bounds", clip_bounds, ([-1.0, 0.0, 1.0, 2.0, -3.0],),
        ([1.0, 1.0, 1.0, 0.0, 0.0],), lambda x: x.clamp(-1.0, 1.0).sum(),
        second=([0.0, 0.0, 0.0, 0.0, 0.0],)),
    Row("sqrt-at-0", sqrt_, ([0.0, 4.0],), ([INF, 0.25],), lambda x: x.sqrt().sum(),
        forward=([INF, NAN],),
        second=([-INF, -0.03125],)),
    Row("norm-at-0", norm_full, ([0.0, 0.0, 0.0],), ([0.0, 0.0, 0.0],),
        _torch("linalg.norm"), second=([0.0, 0.0, 0.0],),
        differs_from_torch=_NORM_SECOND, torch_second=([NAN, NAN, NAN],)),
    Row("norm-at-0-axis", norm_axis, ([[0.0, 0.0], [3.0, 4.0]],), ([[0.0, 0.0], [0.6, 0.8]],),
        lambda x: _torch("linalg.vector_norm")(x, dim=1).sum(),
        second=([[0.0, 0.0], [0.128, 0.072]],), differs_from_torch=_NORM_SECOND,
        torch_second=([[NAN, NAN], [0.128, 0.072]],)),
    Row("where-nan-untaken", where_nan, ([-1.0, 4.0],), ([NAN, 0.25],),
        lambda x: _torch("where")(x > 0, x.sqrt(), 0.0).sum(), forward=([0.0, 0.25],),
        second=([NAN, -0.03125],)),
    Row("where-fixed", where_fixed, ([-1.0, 4.0],), ([0.0, 0.25],),
        lambda x: _torch("where")(x > 0, _torch("where")(x > 0, x, 1.0).sqrt(), 0.0).sum(),
        second=([0.0, -0.03125],)),
    Row("prod-one-zero", prod_full, ([2.0, 0.0, 3.0],), ([0.0, 6.0, 0.0],), lambda x: x.prod(),
        second=([0.0, 0.0, 0.0],)),
    Row("prod-two-zeros", prod_full, ([0.0, 0.0, 3.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.prod(),
        second=([0.0, 0.0, 0.0],)),
    Row("prod-axis-zeros", prod_axis, ([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]],),
        ([[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]],),
        lambda x: x.prod(dim=1).sum(),
        second=([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],)),
    Row("var-of-constant", var_full, ([3.0, 3.0, 3.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.var(correction=0),
        second=([4 / 9] * 3,)),
    Row("std-of-constant", std_full, ([3.0, 3.0, 3.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.std(correction=0),
        second=([0.0, 0.0, 0.0],)),
    Row("std-of-constant-row", std_rows, ([[3.0, 3.0], [1.0, 2.0]],),
        ([[0.0, 0.0], [-0.7071067811865475, 0.7071067811865475]],),
        lambda x: x.std(dim=1).sum()),
    Row("var-no-dof-left", var_no_dof, ([3.0],), ([NAN],), lambda x: x.var(),
        second=([NAN],), torch_second=([0.0],),
        differs_from_torch="second order: srcgrad's stays NaN like the first derivative "
        "(0 / 0, no degree of freedom left); PyTorch's second derivative is 0"),
    Row("std-no-dof-left", std_no_dof, ([3.0],), ([NAN],), lambda x: x.std(),
        second=([NAN],)),
    Row("var-no-dof-left-axis", var_no_dof_axis, ([[3.0], [1.0]],), ([[NAN], [NAN]],),
        lambda x: x.var(dim=1).sum(),
        second=([[NAN], [NAN]],)),
    Row("power-x**0-at-0", power_zero_exponent, ([0.0, 2.0],), ([0.0, 0.0],),
        lambda x: (x ** 0.0).sum(),
        second=([0.0, 0.0],)),
    Row("power-x**2-at-0", power_square, ([0.0, -1.5],), ([0.0, -3.0],),
        lambda x: (x ** 2.0).sum(),
        second=([2.0, 2.0],)),
    Row("power-0**y", power_both, ([0.0, 0.0, 0.0], [2.0, 0.0, 0.5]),
        ([0.0, 0.0, INF], [0.0, 0.0, 0.0]), lambda x, y: _torch("pow")(x, y).sum(),
        forward=([NAN, NAN, INF], [NAN, NAN, NAN])),
    Row("power-0**y-second-order", power_both, ([0.0, 0.0], [2.0, 0.5]), ([0.0, INF], [0.0, 0.0]),
        lambda x, y: _torch("pow")(x, y).sum(), forward=([NAN, INF], [NAN, NAN]),
        second=([2.0, -INF], [0.0, 0.0]), torch_second=([2.0, -INF], [NAN, NAN]),
        differs_from_torch="DESIGN.md: d^2/dy^2 of 0.0 ** y (y > 0) is 0 in srcgrad; PyTorch "
        "gives NaN because its masked log(0) branch leaks"),
    Row("power-negative-base-integer-exponent", power_both,
        ([-2.0, -2.0, -2.0], [3.0, 2.0, -1.0]), ([12.0, -4.0, -0.25], [NAN, NAN, NAN]),
        lambda x, y: _torch("pow")(x, y).sum(), forward=([NAN] * 3, [NAN] * 3),
        second=([-12.0, 2.0, -0.25], [NAN, NAN, NAN],)),
    Row("logaddexp-of-minus-inf", logaddexp_, ([-INF, -INF, 0.0], [0.0, -INF, -INF]),
        ([0.0, NAN, 1.0], [1.0, NAN, 0.0]), lambda x, y: _torch("logaddexp")(x, y).sum(),
        forward=([NAN] * 3, [NAN] * 3),
        second=([0.0, NAN, 0.0], [0.0, NAN, 0.0],), torch_second=([NAN, NAN, 0.0], [0.0, NAN, NAN]),
        differs_from_torch=_LOGADDEXP_SECOND),
]

# Extreme inputs (|z| = 800, where exp overflows): every overflow-prone derivative in the
# table is written in an overflow-free form, so these give exact numbers and no warning
# (test_extreme_inputs_differentiate_without_floating_point_warnings)
EXTREME = [
    Row("logaddexp-at-800", logaddexp_, ([800.0, -800.0, 0.0], [0.0, 0.0, -800.0]),
        ([1.0, 0.0, 1.0], [0.0, 1.0, 0.0]), lambda x, y: _torch("logaddexp")(x, y).sum(),
        second=([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        torch_second=([0.0, NAN, 0.0], [NAN, 0.0, NAN]), differs_from_torch=_LOGADDEXP_SECOND),
    Row("logaddexp-as-softplus-at-800", softplus_as_logaddexp, ([800.0, -800.0, 0.0],),
        ([1.0, 0.0, 0.5],), lambda x: _torch("logaddexp")(x, _torch("zeros_like")(x)).sum(),
        second=([0.0, 0.0, 0.25],), torch_second=([0.0, NAN, 0.25],),
        differs_from_torch=_LOGADDEXP_SECOND),
    Row("sigmoid-at-800", sigmoid_rule, ([800.0, -800.0, 0.0],), ([0.0, 0.0, 0.25],),
        lambda x: x.sigmoid().sum(), runtime=lambda x: x.sigmoid().sum(), only=RUNTIME_ONLY,
        why_only="a Tensor method; the compiler has no NumPy spelling of it",
        second=([0.0, 0.0, 0.0],)),
    Row("log_softmax-at-800", log_softmax_rule, ([800.0, -800.0, 0.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.log_softmax(0)[0], runtime=lambda x: x.log_softmax(0)[0],
        only=RUNTIME_ONLY, why_only="a Tensor method; the compiler has no NumPy spelling of it",
        second=([0.0, 0.0, 0.0],)),
    Row("binary_cross_entropy_with_logits-at-800", bce_with_logits_rule, ([800.0, -800.0, 0.0],),
        ([0.0, 0.0, 0.0],),
        lambda x: _torch("nn.functional.binary_cross_entropy_with_logits")(
            x, _torch("tensor")([1.0, 0.0, 0.5], dtype=x.dtype), reduction="sum"),
        runtime=lambda x: _nn_bce_logits(x), only=RUNTIME_ONLY,
        why_only="sg.nn.functional: the compiler has no NumPy spelling of it",
        second=([0.0, 0.0, 0.25],)),
]
TABLE += EXTREME


def _nn_bce_logits(x: Any) -> Any:
    return sg.nn.functional.binary_cross_entropy_with_logits(
        x, sg.tensor([1.0, 0.0, 0.5], dtype=x.dtype), reduction="sum")


# "<label>[<column>]" -> the bug, while the owner fixes it (strict: a fix must remove it)
PENDING: dict[str, str] = {}

COLUMNS = ("rules", "compiler", "compiler-unoptimized", "compiler-forward", "runtime", "torch",
           "torch-forward")
SECOND_COLUMNS = ("compiler-second", "runtime-second", "torch-second")


def _float_args(row: Row) -> list[np.ndarray]:
    return [np.array(a, dtype=np.float64) for a in row.args]


def _basis(args: list[np.ndarray]):
    """(argument k, element j, tangents): one tangent 1 at element j of argument k, others 0."""
    for k, a in enumerate(args):
        for j in np.ndindex(a.shape):
            tangents = [np.zeros_like(b) for b in args]
            tangents[k][j] = 1.0
            yield k, j, tangents


def _by_basis(args: list[np.ndarray], directional: Callable[[list], Any]) -> list[np.ndarray]:
    """Forward mode's gradient: the directional derivative along every basis vector."""
    out = [np.zeros_like(a) for a in args]
    for k, j, tangents in _basis(args):
        out[k][j] = float(directional(tangents))
    return out


def _rules(row: Row) -> list[np.ndarray]:
    tape = Tape()
    args = [tape.wrap(a) for a in _float_args(row)]
    out = row.f(*args)
    assert isinstance(out, Recorded)
    cts = backprop(tape, out, np.ones(np.shape(out.value)))
    return [np.broadcast_to(cts.get(id(a), 0.0), np.shape(a.value)) for a in args]


def _compiled(row: Row, optimize: bool) -> list[np.ndarray]:
    args = _float_args(row)
    sg.clear_cache()
    grads = sg.grad(row.f, wrt=tuple(range(len(args))), optimize=optimize)(*args)
    return [np.asarray(g) for g in grads]


def _compiled_forward(row: Row) -> list[np.ndarray]:
    args = _float_args(row)
    sg.clear_cache()
    fw = sg.jvp(row.f, wrt=tuple(range(len(args))))
    return _by_basis(args, lambda tangents: fw(*args, tuple(tangents))[1])


def _runtime(row: Row) -> list[np.ndarray]:
    tensors = [sg.tensor(a, requires_grad=True) for a in _float_args(row)]
    row.runtime_f()(*tensors).backward()
    return [np.asarray(t.grad) for t in tensors]


def _torch_grads(row: Row) -> list[np.ndarray]:
    torch = pytest.importorskip("torch")
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in row.args]
    row.torch_f(*tensors).backward()
    return [t.grad.numpy() for t in tensors]


def _torch_forward(row: Row) -> list[np.ndarray]:
    torch = pytest.importorskip("torch")
    args = _float_args(row)
    primals = tuple(torch.tensor(a) for a in args)
    return _by_basis(args, lambda tangents: torch.func.jvp(
        row.torch_f, primals, tuple(torch.tensor(t) for t in tangents))[1].item())


def _diagonal(block: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``d^2 f / d x_j^2`` from a Hessian block of shape ``shape + shape``."""
    n = int(np.prod(shape, dtype=int))
    return np.asarray(block, dtype=np.float64).reshape(n, n).diagonal().reshape(shape)


def _compiled_second(row: Row) -> list[np.ndarray]:
    args = _float_args(row)
    sg.clear_cache()
    return [_diagonal(sg.hessian(row.f, wrt=k)(*args), a.shape) for k, a in enumerate(args)]


def _runtime_second(row: Row) -> list[np.ndarray]:
    from srcgrad.autograd.functional import hessian

    args = _float_args(row)
    blocks = hessian(row.runtime_f(), tuple(sg.tensor(a) for a in args))
    return [_diagonal(np.asarray(blocks[k][k].detach().numpy()), a.shape)
            for k, a in enumerate(args)]


def _torch_second(row: Row) -> list[np.ndarray]:
    torch = pytest.importorskip("torch")
    args = _float_args(row)
    blocks = torch.autograd.functional.hessian(row.torch_f, tuple(torch.tensor(a) for a in args))
    return [_diagonal(blocks[k][k].numpy(), a.shape) for k, a in enumerate(args)]


def gradients(row: Row, column: str) -> list[np.ndarray]:
    """d f / d args of ``row`` in ``column``; the kinks divide by zero on purpose."""
    compute = {"rules": _rules, "compiler": lambda r: _compiled(r, True),
               "compiler-unoptimized": lambda r: _compiled(r, False),
               "compiler-forward": _compiled_forward, "runtime": _runtime,
               "torch": _torch_grads, "torch-forward": _torch_forward,
               "compiler-second": _compiled_second, "runtime-second": _runtime_second,
               "torch-second": _torch_second}[column]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("ignore", ".*[Dd]egrees of freedom")  # var with n == ddof
        return compute(row)


def expected(row: Row, column: str) -> tuple[Any, ...]:
    """srcgrad's numbers, or PyTorch's where the row documents a deliberate difference."""
    forward = row.forward if row.forward is not None else row.grads
    if column == "torch-second":
        return row.torch_second if row.torch_second is not None else row.second
    if column.endswith("second"):
        return row.second
    if column == "torch":
        return row.torch_grads if row.torch_grads is not None else row.grads
    if column == "torch-forward":
        return row.torch_forward if row.torch_forward is not None else forward
    return forward if column == "compiler-forward" else row.grads


def _columns(row: Row) -> tuple[str, ...]:
    first = row.only or COLUMNS
    if row.second is None:
        return first
    return first + tuple(c for c in SECOND_COLUMNS if c.split("-")[0] in
                         {f.split("-")[0] for f in first})


def _cases():
    for row in TABLE:
        for column in _columns(row):
            key = f"{row.label}[{column}]"
            marks = [pytest.mark.xfail(strict=True, reason=PENDING[key])] if key in PENDING else []
            yield pytest.param(row, column, id=key, marks=marks)


def test_table_rows_are_unique_and_name_known_columns():
    labels = [row.label for row in TABLE]
    assert len(labels) == len(set(labels))
    assert all(set(row.only or ()) <= set(COLUMNS) for row in TABLE)
    assert set(PENDING) <= {f"{r.label}[{c}]" for r in TABLE for c in _columns(r)}


@pytest.mark.parametrize("row, column", list(_cases()))
def test_kink_table(row, column):
    got = gradients(row, column)
    want_all = expected(row, column)
    assert len(got) == len(want_all)
    for k, (g, want) in enumerate(zip(got, want_all)):
        want = np.array(want, dtype=np.float64)
        assert g.shape == want.shape, f"{row.label} [{column}] argument {k}: shape {g.shape}"
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=0, equal_nan=True,
                                   err_msg=f"{row.label} [{column}]: gradient of argument {k}")


def _row(label: str) -> Row:
    return next(row for row in TABLE if row.label == label)


@pytest.mark.parametrize("row, column", [(r, c) for r in EXTREME for c in _columns(r)
                                         if not c.startswith("torch")],
                         ids=lambda v: getattr(v, "label", v))
def test_extreme_inputs_differentiate_without_floating_point_warnings(row, column):
    compute = {"rules": _rules, "compiler": lambda r: _compiled(r, True),
               "compiler-unoptimized": lambda r: _compiled(r, False),
               "compiler-forward": _compiled_forward, "runtime": _runtime,
               "compiler-second": _compiled_second, "runtime-second": _runtime_second}[column]
    # (underflow to 0 is the right answer at these points, and NumPy ignores it by default)
    with np.errstate(over="raise", divide="raise", invalid="raise"), \
            warnings.catch_warnings():
        warnings.simplefilter("error")
        compute(row)


@pytest.mark.parametrize("label, column, change", [
    ("abs", "compiler", {"grads": ([0.0, -1.0, 1.0 + 1e-9],)}),  # off in the 9th digit
    ("where-nan-untaken", "runtime", {"grads": ([0.0, 0.25],)}),  # NaN expected, 0 is wrong
    ("sqrt-at-0", "compiler-forward", {"forward": ([INF, 0.25],)}),  # NaN expected
    ("power-x**2-at-0", "compiler-second", {"second": ([2.0, 0.0],)}),
])
def test_a_wrong_table_entry_fails(label, column, change):
    wrong = dataclasses.replace(_row(label), **change)
    with pytest.raises(AssertionError):
        test_kink_table(wrong, column)


def test_a_difference_from_torch_needs_its_reason_and_torch_numbers():
    with pytest.raises(AssertionError, match="reason"):
        dataclasses.replace(_row("abs"), torch_grads=([0.0, -1.0, 1.0],))
    with pytest.raises(AssertionError, match="reason"):
        dataclasses.replace(_row("abs"), differs_from_torch="no numbers given")
