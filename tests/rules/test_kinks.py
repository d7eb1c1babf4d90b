"""The value of every derivative at DESIGN.md's kinks, as PyTorch gives it.

``KINKS`` is the table (other suites import it to check the compiler and the runtime at
the same points): a NumPy function, its arguments, the gradient of ``sum(f(*args))`` with
respect to each argument as PyTorch 2.x computes it (numbers written out, not computed),
and the same function in torch. ``test_kink`` differentiates the NumPy function with the
table's rules (traced on :mod:`.recording`'s array-like and reversed); ``test_kink_matches
_torch`` re-derives the expected numbers with torch when it is installed.

``where`` note: ``np.where(x > 0, np.sqrt(x), 0.0)`` has gradient NaN at ``x = -1``, in
srcgrad as in PyTorch: the untaken branch's adjoint is ``0 / (2 * sqrt(-1)) = 0 / nan``.
The fix is to keep the untaken branch finite, ``np.sqrt(np.where(x > 0, x, 1.0))``
(row ``where-fixed``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from srcgrad.rules import RULES

from .recording import Recorded, Tape, backprop

INF, NAN = math.inf, math.nan


@dataclass
class Kink:
    label: str
    f: Callable[..., Any]  # NumPy spelling
    args: tuple[Any, ...]
    grads: tuple[Any, ...]  # d sum(f) / d arg, as PyTorch gives it
    torch_f: Callable[..., Any] | None = None
    needs: str | None = None  # a rule that must be registered (runtime-only ones)


def _t(name: str) -> Callable[..., Any]:
    """A torch function by name, looked up only when torch is there."""
    def call(*args: Any, **kwargs: Any) -> Any:
        import torch
        obj: Any = torch
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj(*args, **kwargs)
    return call


KINKS = [
    Kink("abs", np.abs, ([0.0, -1.0, 2.0],), ([0.0, -1.0, 1.0],), _t("abs")),
    Kink("relu", lambda x: RULES["relu"].impl(x),
         ([0.0, -1.0, 2.0],), ([0.0, 0.0, 1.0],), _t("relu"), needs="relu"),
    Kink("maximum-tie", np.maximum, ([1.0, 2.0], [1.0, 1.0]), ([0.5, 1.0], [0.5, 0.0]),
         _t("maximum")),
    Kink("minimum-tie", np.minimum, ([1.0, 2.0], [1.0, 1.0]), ([0.5, 0.0], [0.5, 1.0]),
         _t("minimum")),
    Kink("max-full-ties", np.max, ([1.0, 3.0, 3.0, 2.0],), ([0.0, 0.5, 0.5, 0.0],),
         lambda x: x.max()),
    Kink("min-full-ties", np.min, ([1.0, 0.0, 0.0, 2.0],), ([0.0, 0.5, 0.5, 0.0],),
         lambda x: x.min()),
    Kink("max-axis-ties", lambda x: np.max(x, axis=1), ([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]],),
         ([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],), lambda x: x.max(dim=1).values),
    Kink("min-axis-ties", lambda x: np.min(x, axis=0), ([[1.0, 3.0], [1.0, 2.0]],),
         ([[1.0, 0.0], [0.0, 1.0]],), lambda x: x.min(dim=0).values),
    Kink("clip-bounds", lambda x: np.clip(x, -1.0, 1.0), ([-1.0, 0.0, 1.0, 2.0, -3.0],),
         ([1.0, 1.0, 1.0, 0.0, 0.0],), lambda x: x.clamp(-1.0, 1.0)),
    Kink("sqrt-0", np.sqrt, ([0.0, 4.0],), ([INF, 0.25],), _t("sqrt")),
    Kink("norm-0", np.linalg.norm, ([0.0, 0.0, 0.0],), ([0.0, 0.0, 0.0],), _t("linalg.norm")),
    Kink("norm-0-axis", lambda x: np.linalg.norm(x, axis=1), ([[0.0, 0.0], [3.0, 4.0]],),
         ([[0.0, 0.0], [0.6, 0.8]],), lambda x: _t("linalg.vector_norm")(x, dim=1)),
    Kink("where-nan", lambda x: np.where(x > 0, np.sqrt(x), 0.0), ([-1.0, 4.0],),
         ([NAN, 0.25],), lambda x: _t("where")(x > 0, _t("sqrt")(x), 0.0)),
    Kink("where-fixed", lambda x: np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0),
         ([-1.0, 4.0],), ([0.0, 0.25],),
         lambda x: _t("where")(x > 0, _t("sqrt")(_t("where")(x > 0, x, 1.0)), 0.0)),
    Kink("prod-one-zero", np.prod, ([2.0, 0.0, 3.0],), ([0.0, 6.0, 0.0],), _t("prod")),
    Kink("prod-two-zeros", np.prod, ([0.0, 0.0, 3.0],), ([0.0, 0.0, 0.0],), _t("prod")),
    Kink("prod-axis-zeros", lambda x: np.prod(x, axis=1),
         ([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]],),
         ([[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]],), lambda x: x.prod(dim=1)),
    Kink("var-constant", np.var, ([3.0, 3.0, 3.0],), ([0.0, 0.0, 0.0],),
         lambda x: x.var(correction=0)),
    Kink("std-constant", np.std, ([3.0, 3.0, 3.0],), ([0.0, 0.0, 0.0],),
         lambda x: x.std(correction=0)),
    Kink("std-constant-row", lambda x: np.std(x, axis=1, ddof=1), ([[3.0, 3.0], [1.0, 2.0]],),
         ([[0.0, 0.0], [-0.7071067811865475, 0.7071067811865475]],), lambda x: x.std(dim=1)),
    Kink("var-no-dof-left", lambda x: np.var(x, ddof=1), ([3.0],), ([NAN],),
         lambda x: x.var()),
    Kink("std-no-dof-left", lambda x: np.std(x, ddof=1), ([3.0],), ([NAN],),
         lambda x: x.std()),
    Kink("var-no-dof-left-axis", lambda x: np.var(x, axis=1, ddof=1), ([[3.0], [1.0]],),
         ([[NAN], [NAN]],), lambda x: x.var(dim=1)),
    Kink("max-times-min-inf", lambda x: np.max(x) * np.min(x), ([1.0, INF, -INF],),
         ([0.0, -INF, INF],), lambda x: x.max() * x.min()),
    Kink("max-axis-inf-cotangent", lambda x: np.max(x, axis=1) * INF,
         ([[1.0, 2.0, 0.0], [-INF, INF, 5.0]],), ([[0.0, INF, 0.0], [0.0, INF, 0.0]],),
         lambda x: x.max(dim=1).values * INF),
    Kink("min-axis-inf-cotangent", lambda x: np.min(x, axis=0) * -INF,
         ([[1.0, -INF], [0.0, 2.0]],), ([[0.0, -INF], [-INF, 0.0]],),
         lambda x: x.min(dim=0).values * -INF),
    Kink("amax-axis-ties", lambda x: RULES["amax"].impl(x, axis=1),
         ([[1.0, 3.0, 3.0], [2.0, -INF, 2.0]],), ([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]],),
         lambda x: x.amax(dim=1), needs="amax"),
    Kink("amin-full-ties", lambda x: RULES["amin"].impl(x), ([[1.0, 3.0], [1.0, 2.0]],),
         ([[0.5, 0.0], [0.5, 0.0]],), lambda x: x.amin(), needs="amin"),
    Kink("max-nan", np.max, ([1.0, NAN, 2.0],), ([0.0, 1.0, 0.0],), lambda x: x.max()),
    Kink("min-nan-axis", lambda x: np.min(x, axis=1), ([[1.0, NAN, NAN], [3.0, 2.0, 4.0]],),
         ([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]],), lambda x: x.min(dim=1).values),
    Kink("power-x**0-at-0", lambda x: x ** 0.0, ([0.0],), ([0.0],), lambda x: x ** 0.0),
    Kink("power-x**2-at-0", lambda x: x ** 2.0, ([0.0],), ([0.0],), lambda x: x ** 2.0),
    Kink("power-0**y", np.power, ([0.0, 0.0, 0.0], [2.0, 0.0, 0.5]),
         ([0.0, 0.0, INF], [0.0, 0.0, 0.0]), _t("pow")),
    Kink("power-negative-base", np.power, ([-2.0, -2.0, -2.0], [3.0, 2.0, -1.0]),
         ([12.0, -4.0, -0.25], [NAN, NAN, NAN]), _t("pow")),
    Kink("logaddexp-inf", np.logaddexp, ([-INF, -INF, 0.0], [0.0, -INF, -INF]),
         ([0.0, NAN, 1.0], [1.0, NAN, 0.0]), _t("logaddexp")),
]


# var/std with no degree of freedom left warn in the forward, in NumPy as in torch
_DOF_WARNINGS = pytest.mark.filterwarnings("ignore:.*[Dd]egrees of freedom")


def srcgrad_gradients(kink: Kink) -> list[np.ndarray]:
    """d sum(f(*args)) / d args with the table's rules."""
    tape = Tape()
    args = [tape.wrap(np.array(a, dtype=np.float64)) for a in kink.args]
    with np.errstate(all="ignore"):  # the kinks divide by zero and take sqrt(-1) on purpose
        out = kink.f(*args)
        assert isinstance(out, Recorded)
        cts = backprop(tape, out, np.ones(np.shape(out.value)))
    return [np.broadcast_to(cts.get(id(a), 0.0), np.shape(a.value)) for a in args]


@_DOF_WARNINGS
@pytest.mark.parametrize("kink", KINKS, ids=lambda k: k.label)
def test_kink(kink):
    if kink.needs and kink.needs not in RULES:
        pytest.skip(f"rule {kink.needs!r} is not registered yet")
    got = srcgrad_gradients(kink)
    for k, (g, want) in enumerate(zip(got, kink.grads)):
        np.testing.assert_allclose(g, np.array(want), rtol=1e-12, atol=0, equal_nan=True,
                                   err_msg=f"{kink.label}: gradient of argument {k}")


@_DOF_WARNINGS
@pytest.mark.parametrize("kink", KINKS, ids=lambda k: k.label)
def test_kink_matches_torch(kink):
    torch = pytest.importorskip("torch")
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in kink.args]
    kink.torch_f(*ts).sum().backward()
    for k, (t, want) in enumerate(zip(ts, kink.grads)):
        np.testing.assert_allclose(t.grad.numpy(), np.array(want), rtol=1e-12, atol=0,
                                   equal_nan=True, err_msg=f"{kink.label}: argument {k}")
