"""Gradients of Dask arrays stay lazy: no compute inside the call, Dask gradients out.

API.md "Other array types": with every array argument a Dask array, or NumPy parameters
and Dask data, a gradient call performs no compute (counted with a
``dask.callbacks.Callback``) except the ``bool()`` of the program's own ``if``/``while``
tests, and returns Dask arrays equal to central finite differences of the NumPy program.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import (
    assert_close,
    directional_derivative,
    numeric_gradient,
    numeric_hessian,
    numeric_jacobian,
)
from tests.foreign import programs
from tests.foreign.programs import PROGRAMS, Program

da = pytest.importorskip("dask.array")
callbacks = pytest.importorskip("dask.callbacks")


class Computes(callbacks.Callback):
    """Counts the graphs Dask computes while active (one per ``compute``/``bool``)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def _start(self, dsk: object) -> None:
        self.count += 1


def _lazy(a: np.ndarray) -> object:
    return da.from_array(a, chunks=tuple(max(1, n // 2) for n in a.shape))


def _call_counting(fn, *args):
    """``fn(*args)`` with Dask's computes counted and its fallback warnings made errors (a
    warning means Dask met a function it does not know and computed to run it on NumPy)."""
    counter = Computes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with counter:
            result = fn(*args)
    return result, counter.count


def _leaves(result):
    return list(result) if isinstance(result, tuple) else [result]


_CASES = [(p, True) for p in PROGRAMS] + [(p, False) for p in PROGRAMS if p.has_data]


@pytest.mark.parametrize(("program", "everything_lazy"), _CASES,
                         ids=[f"{p.name}-{'dask-all' if e else 'dask-data'}" for p, e in _CASES])
def test_dask_gradient_is_lazy_and_equals_finite_differences(program: Program,
                                                             everything_lazy: bool):
    args = program.make(np.random.default_rng(17))
    lazy = tuple(_lazy(a) if everything_lazy or i not in program.params else a
                 for i, a in enumerate(args))
    grad = sg.grad(program.fn, wrt=program.params)
    result, computes = _call_counting(grad, *lazy)
    assert computes == program.tests(*args), "only the program's own tests may compute"
    on_numpy = _leaves(grad(*args))
    for k, (place, g) in enumerate(zip(program.params, _leaves(result), strict=True)):
        assert isinstance(g, da.Array), f"gradient of argument {place} is {type(g).__name__}"
        assert g.shape == args[place].shape and g.dtype == args[place].dtype
        assert_close(g.compute(), on_numpy[k], rtol=1e-12, atol=1e-12, what="Dask vs NumPy")
        if not program.at_kink:
            assert_close(g.compute(), numeric_gradient(program.fn, args, None, place))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_dask_forward_mode_is_lazy_and_equals_finite_differences(program: Program):
    args = program.make(np.random.default_rng(18))
    place = program.params[0]
    tangent = np.random.default_rng(19).normal(size=args[place].shape)
    lazy = tuple(_lazy(a) for a in args)
    (value, derivative), computes = _call_counting(sg.jvp(program.fn, wrt=place), *lazy,
                                                   _lazy(tangent))
    assert computes == program.tests(*args)
    assert isinstance(derivative, da.Array)
    assert_close(value.compute(), program.fn(*args), what="value")
    _, on_numpy = sg.jvp(program.fn, wrt=place)(*args, tangent)
    assert_close(derivative.compute(), on_numpy, rtol=1e-12, atol=1e-12, what="Dask vs NumPy")
    if not program.at_kink:
        assert_close(derivative.compute(),
                     directional_derivative(program.fn, args, {place: tangent}))


@pytest.mark.parametrize("program", [p for p in PROGRAMS if not p.branches and p.params == (0,)],
                         ids=lambda p: p.name)
def test_dask_hessian_vector_product_is_lazy(program: Program):
    args = program.make(np.random.default_rng(20))
    v = np.random.default_rng(21).normal(size=args[0].shape)
    grad = sg.grad(program.fn)
    (_, hv), computes = _call_counting(sg.jvp(grad), *map(_lazy, args), _lazy(v))
    assert computes == 0
    assert isinstance(hv, da.Array)
    assert_close(hv.compute(), sg.jvp(grad)(*args, v)[1], rtol=1e-12, atol=1e-12,
                 what="Dask vs NumPy")
    if not program.at_kink:
        assert_close(hv.compute(), directional_derivative(grad, args, {0: v}), rtol=1e-5,
                     atol=1e-5)


def test_dask_value_and_grad_of_float_parameter_is_a_lazy_0d_array():
    X = np.random.default_rng(3).normal(size=(30, 2))

    def loss(scale, X):
        return np.sum(np.tanh(scale * X))

    (value, g), computes = _call_counting(sg.value_and_grad(loss), 0.7, _lazy(X))
    assert computes == 0
    assert isinstance(g, da.Array) and g.shape == ()
    assert_close(value.compute(), loss(0.7, X), what="value")
    assert_close(g.compute(), numeric_gradient(loss, (0.7, X), None, 0))


def test_dask_grad_of_a_result_with_many_elements_is_refused_without_computing():
    def f(x):
        return x * 2

    counter = Computes()
    with counter, pytest.raises(sg.SrcGradError, match="exactly one element"):
        sg.grad(f)(_lazy(np.ones(4)))
    assert counter.count == 0


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_dask_jacobian_is_lazy_and_equals_finite_differences(mode: str):
    A = np.random.default_rng(7).normal(size=(3, 4))
    x = np.random.default_rng(8).normal(size=4)

    def f(x, A):
        return np.tanh(A @ x) * np.sum(x ** 2)

    # 3 results: reverse mode for 4 inputs, forward mode for 2
    point = (x, A) if mode == "reverse" else (x[:2], A[:, :2])
    jac = sg.jacobian(f)
    J, computes = _call_counting(jac, _lazy(point[0]), _lazy(point[1]))
    assert computes == 0 and jac.last_mode == mode
    assert isinstance(J, da.Array)
    assert_close(J.compute(), numeric_jacobian(f, point, 0))


_SMALL = [(programs.logsumexp_max_shift, lambda r: (r.normal(size=5),)),
          (programs.softmax_cross_entropy, programs._classes),
          (programs.column_reads, lambda r: (r.normal(size=(3, 4)),)),
          (programs.for_over_rows, lambda r: (r.normal(size=(3, 4)),)),
          (programs.masks_in_rule_bodies, lambda r: (r.normal(size=(3, 4)),))]


@pytest.mark.parametrize(("fn", "make"), _SMALL, ids=[f.__name__ for f, _ in _SMALL])
def test_dask_hessian_of_a_small_array_is_lazy_and_equals_finite_differences(fn, make):
    args = make(np.random.default_rng(32))
    H, computes = _call_counting(sg.hessian(fn), *map(_lazy, args))
    assert computes == 0
    assert isinstance(H, da.Array) and H.shape == args[0].shape * 2
    assert_close(H.compute(), numeric_hessian(sg.grad(fn), args, 0), rtol=1e-5, atol=1e-5)
