"""Every kink and special value of DESIGN.md's "Numerical conventions at kinks", exactly,
through the compiler (``sg.grad``, optimize on and off), the runtime (``backward``) and, when
it is installed, PyTorch itself.

Finite differences never land on these points, so the expected gradients are written into
the table: they are what PyTorch 2.x gives (the ``torch`` column re-derives them live). Each
row is a module-level function, so the compiler can read its source; a row's ``runtime``
function is the same one unless the runtime spells the operation differently (``relu``).

``where`` note: the untaken branch's adjoint reaches the argument as ``0 * inf`` = NaN, in
srcgrad as in PyTorch; keeping the untaken branch finite inside the function is the fix
(row ``where-fixed``).

``SECOND_ORDER`` holds the second derivatives at kinks, through the compiler (``sg.hessian``
and forward-over-reverse ``sg.jvp(sg.grad(f))``) and the runtime (``create_graph=True``).
Its rows marked ``differs_from_torch`` are srcgrad's deliberate differences from PyTorch:
there the ``torch`` column checks that PyTorch still gives what the row says it gives.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import srcgrad as sg

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


@dataclass
class Row:
    label: str
    f: Callable[..., Any] | None  # what the compiler differentiates (None: runtime only)
    args: tuple[Any, ...]
    grads: tuple[Any, ...]  # PyTorch's d f / d args
    torch_f: Callable[..., Any]
    runtime: Callable[..., Any] | None = None  # the runtime's spelling when it differs

    def runtime_f(self) -> Callable[..., Any]:
        return self.runtime or self.f


def _torch(name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        import torch
        obj: Any = torch
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj(*args, **kwargs)
    return call


TABLE = [
    Row("abs", abs_, ([0.0, -1.0, 2.0],), ([0.0, -1.0, 1.0],), lambda x: x.abs().sum()),
    Row("relu", None, ([0.0, -1.0, 2.0],), ([0.0, 0.0, 1.0],), lambda x: x.relu().sum(),
        runtime=relu_runtime),
    Row("relu-as-maximum(x, 0)", relu_as_maximum, ([0.0, -1.0, 2.0],), ([0.5, 0.0, 1.0],),
        lambda x: _torch("maximum")(x, _torch("zeros_like")(x)).sum()),
    Row("maximum-tie", maximum_tie, ([1.0, 2.0], [1.0, 1.0]), ([0.5, 1.0], [0.5, 0.0]),
        lambda x, y: _torch("maximum")(x, y).sum()),
    Row("minimum-tie", minimum_tie, ([1.0, 2.0], [1.0, 1.0]), ([0.5, 0.0], [0.5, 1.0]),
        lambda x, y: _torch("minimum")(x, y).sum()),
    Row("max-full-ties", max_full, ([1.0, 3.0, 3.0, 2.0],), ([0.0, 0.5, 0.5, 0.0],),
        lambda x: x.max()),
    Row("min-full-ties", min_full, ([1.0, 0.0, 0.0, 2.0],), ([0.0, 0.5, 0.5, 0.0],),
        lambda x: x.min()),
    Row("max-axis-ties", max_axis, ([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]],),
        ([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],), lambda x: x.max(dim=1).values.sum()),
    Row("min-axis-ties", min_axis, ([[1.0, 3.0], [1.0, 2.0]],), ([[1.0, 0.0], [0.0, 1.0]],),
        lambda x: x.min(dim=0).values.sum()),
    Row("clip-at-both-bounds", clip_bounds, ([-1.0, 0.0, 1.0, 2.0, -3.0],),
        ([1.0, 1.0, 1.0, 0.0, 0.0],), lambda x: x.clamp(-1.0, 1.0).sum()),
    Row("sqrt-at-0", sqrt_, ([0.0, 4.0],), ([INF, 0.25],), lambda x: x.sqrt().sum()),
    Row("norm-at-0", norm_full, ([0.0, 0.0, 0.0],), ([0.0, 0.0, 0.0],),
        _torch("linalg.norm")),
    Row("norm-at-0-axis", norm_axis, ([[0.0, 0.0], [3.0, 4.0]],), ([[0.0, 0.0], [0.6, 0.8]],),
        lambda x: _torch("linalg.vector_norm")(x, dim=1).sum()),
    Row("where-nan-untaken", where_nan, ([-1.0, 4.0],), ([NAN, 0.25],),
        lambda x: _torch("where")(x > 0, x.sqrt(), 0.0).sum()),
    Row("where-fixed", where_fixed, ([-1.0, 4.0],), ([0.0, 0.25],),
        lambda x: _torch("where")(x > 0, _torch("where")(x > 0, x, 1.0).sqrt(), 0.0).sum()),
    Row("prod-one-zero", prod_full, ([2.0, 0.0, 3.0],), ([0.0, 6.0, 0.0],), lambda x: x.prod()),
    Row("prod-two-zeros", prod_full, ([0.0, 0.0, 3.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.prod()),
    Row("prod-axis-zeros", prod_axis, ([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]],),
        ([[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]],),
        lambda x: x.prod(dim=1).sum()),
    Row("var-of-constant", var_full, ([3.0, 3.0, 3.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.var(correction=0)),
    Row("std-of-constant", std_full, ([3.0, 3.0, 3.0],), ([0.0, 0.0, 0.0],),
        lambda x: x.std(correction=0)),
    Row("std-of-constant-row", std_rows, ([[3.0, 3.0], [1.0, 2.0]],),
        ([[0.0, 0.0], [-0.7071067811865475, 0.7071067811865475]],),
        lambda x: x.std(dim=1).sum()),
    Row("power-x**0-at-0", power_zero_exponent, ([0.0, 2.0],), ([0.0, 0.0],),
        lambda x: (x ** 0.0).sum()),
    Row("power-x**2-at-0", power_square, ([0.0, -1.5],), ([0.0, -3.0],),
        lambda x: (x ** 2.0).sum()),
    Row("power-0**y", power_both, ([0.0, 0.0, 0.0], [2.0, 0.0, 0.5]),
        ([0.0, 0.0, INF], [0.0, 0.0, 0.0]), lambda x, y: _torch("pow")(x, y).sum()),
    Row("power-negative-base-integer-exponent", power_both,
        ([-2.0, -2.0, -2.0], [3.0, 2.0, -1.0]), ([12.0, -4.0, -0.25], [NAN, NAN, NAN]),
        lambda x, y: _torch("pow")(x, y).sum()),
    Row("logaddexp-of-minus-inf", logaddexp_, ([-INF, -INF, 0.0], [0.0, -INF, -INF]),
        ([0.0, NAN, 1.0], [1.0, NAN, 0.0]), lambda x, y: _torch("logaddexp")(x, y).sum()),
]



def zero_base_power(y):
    return np.sum(0.0 ** y)


def zero_array_base_power(y):
    return np.sum(np.zeros_like(y) ** y)  # a base known only at run time


@dataclass
class SecondRow:
    """A function of one argument whose Hessian is diagonal: ``hess`` is that diagonal."""

    label: str
    f: Callable[..., Any]
    arg: Any
    hess: Any  # srcgrad's d2 f / d arg2 (diagonal)
    torch_f: Callable[..., Any]
    torch_hess: Any = None  # PyTorch's, where it differs on purpose
    differs_from_torch: str = ""  # why srcgrad differs (listed in DESIGN.md's kink notes)


SECOND_ORDER = [
    # x ** 0 is constant: its derivative (masked to 0, PyTorch's rule) has slope 0 too,
    # also at 0, where the unmasked branch y * x ** (y - 1) is inf
    SecondRow("power-x**0-at-0-second-order", power_zero_exponent, [0.0, 2.0], [0.0, 0.0],
              lambda x: (x ** 0.0).sum()),
    # d/dy 0 ** y is masked to 0 for y >= 0; srcgrad masks log's input too (a double
    # where), so the next derivative is 0. PyTorch masks only log(0)'s result: NaN
    SecondRow("power-0**y-second-order-in-y", zero_base_power, [2.0, 0.5, 3.0],
              [0.0, 0.0, 0.0], lambda y: (_torch("zeros_like")(y) ** y).sum(),
              torch_hess=[NAN, NAN, NAN],
              differs_from_torch="PyTorch's masked log(0) branch leaks NaN into d2/dy2"),
    SecondRow("power-zeros**y-second-order-in-y", zero_array_base_power, [2.0, 0.5, 3.0],
              [0.0, 0.0, 0.0], lambda y: (_torch("zeros_like")(y) ** y).sum(),
              torch_hess=[NAN, NAN, NAN],
              differs_from_torch="PyTorch's masked log(0) branch leaks NaN into d2/dy2"),
]
SECOND_BACKENDS = ("compiler-hessian", "compiler-jvp-of-grad", "compiler-grad-of-grad",
                   "runtime", "torch")


def _sum_of_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    df = sg.grad(f)

    def sum_of_gradient(x):
        return np.sum(df(x))
    return sum_of_gradient


def second_derivatives(row: SecondRow, backend: str) -> np.ndarray:
    """The diagonal of the Hessian of ``row.f`` by ``backend`` (H @ 1: it is diagonal)."""
    x = np.array(row.arg, dtype=np.float64)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if backend == "compiler-hessian":
            sg.clear_cache()
            return np.diag(sg.hessian(row.f)(x))
        if backend == "compiler-jvp-of-grad":
            sg.clear_cache()
            return np.asarray(sg.jvp(sg.grad(row.f))(x, np.ones_like(x))[1])
        if backend == "compiler-grad-of-grad":  # reverse over reverse: H @ 1
            sg.clear_cache()
            return np.asarray(sg.grad(_sum_of_gradient(row.f))(x))
        if backend == "runtime":
            t = sg.tensor(x, requires_grad=True)
            (g,) = sg.autograd.grad(row.f(t), t, create_graph=True)
            (h,) = sg.autograd.grad(g.sum(), t)
            return np.asarray(h)
        torch = pytest.importorskip("torch")
        t = torch.tensor(x, requires_grad=True)
        (g,) = torch.autograd.grad(row.torch_f(t), t, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), t)
        return h.numpy()


@pytest.mark.parametrize("row, backend", [
    pytest.param(row, backend, id=f"{row.label}[{backend}]")
    for row in SECOND_ORDER for backend in SECOND_BACKENDS])
def test_kink_table_second_order(row, backend):
    got = second_derivatives(row, backend)
    want = row.torch_hess if backend == "torch" and row.differs_from_torch else row.hess
    np.testing.assert_allclose(got, np.array(want, dtype=np.float64), rtol=1e-12, atol=0,
                               equal_nan=True, err_msg=f"{row.label} [{backend}]")


def test_kink_table_second_order_lists_each_deliberate_difference_with_torchs_value():
    for row in SECOND_ORDER:
        assert bool(row.differs_from_torch) == (row.torch_hess is not None), row.label


# "<label>[<backend>]" -> the bug, while the owner fixes it (strict: a fix must remove it)
PENDING: dict[str, str] = {}

BACKENDS = ("compiler", "compiler-unoptimized", "runtime", "torch")


def _compiled(row: Row, optimize: bool) -> list[np.ndarray]:
    args = [np.array(a, dtype=np.float64) for a in row.args]
    wrt = tuple(range(len(args)))
    sg.clear_cache()
    grads = sg.grad(row.f, wrt=wrt, optimize=optimize)(*args)
    return [np.asarray(g) for g in grads]


def _runtime(row: Row) -> list[np.ndarray]:
    tensors = [sg.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in row.args]
    row.runtime_f()(*tensors).backward()
    return [np.asarray(t.grad) for t in tensors]


def _torch_grads(row: Row) -> list[np.ndarray]:
    torch = pytest.importorskip("torch")
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in row.args]
    row.torch_f(*tensors).backward()
    return [t.grad.numpy() for t in tensors]


def gradients(row: Row, backend: str) -> list[np.ndarray]:
    """d f / d args of ``row`` by ``backend``; the kinks divide by zero on purpose."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if backend == "torch":
            return _torch_grads(row)
        if backend == "runtime":
            return _runtime(row)
        if row.f is None:
            pytest.skip(f"{row.label} is a runtime operation (the compiler row spells it "
                        "np.maximum(x, 0.0))")
        return _compiled(row, optimize=backend == "compiler")


def _cases():
    for row in TABLE:
        for backend in BACKENDS:
            key = f"{row.label}[{backend}]"
            marks = [pytest.mark.xfail(strict=True, reason=PENDING[key])] if key in PENDING else []
            yield pytest.param(row, backend, id=key, marks=marks)


@pytest.mark.parametrize("row, backend", list(_cases()))
def test_kink_table(row, backend):
    got = gradients(row, backend)
    assert len(got) == len(row.grads)
    for k, (g, want) in enumerate(zip(got, row.grads)):
        want = np.array(want, dtype=np.float64)
        assert g.shape == want.shape, f"{row.label} [{backend}] argument {k}: shape {g.shape}"
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=0, equal_nan=True,
                                   err_msg=f"{row.label} [{backend}]: gradient of argument {k}")
