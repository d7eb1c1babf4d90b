"""The elementwise fast paths run NumPy inside a per-thread context whose error state is
"ignore" (``autograd.fp_errors.QUIET``): floating-point errors stay values whatever the
user's own state, that state is untouched, an op recorded while the context is already
entered (a finalizer run inside a ufunc) falls back to the reentrant way, and threads
each get their own context."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.fp_errors import QUIET
from srcgrad.autograd.rule_node import set_specialized
from tests.fd import numeric_gradient


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _program(x, w):
    """Every fast form: tensor op tensor, tensor op number, number op tensor, unary."""
    h = x
    for _ in range(3):
        h = (2.0 - (h * w).tanh()).exp() / 3.0
        h = h.sin() * 0.5 + h.sigmoid() ** 2
    return h.sum()


def _values(size=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(size), rng.standard_normal(size)


def _check_gradients(x0, w0, grads):
    fn = lambda x, w: _program(sg.tensor(x), sg.tensor(w)).item()  # noqa: E731
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_gradient(fn, (x0, w0), None, k), rtol=1e-6,
                                   atol=1e-8)


def _gradients(x0, w0):
    x, w = (sg.tensor(v, requires_grad=True) for v in (x0, w0))
    _program(x, w).backward()
    return x.grad.numpy(), w.grad.numpy()


def test_ops_recorded_inside_the_entered_quiet_context_still_differentiate(mode):
    x0, w0 = _values()
    grads = QUIET.run(_gradients, x0, w0)  # every op finds the context already entered
    _check_gradients(x0, w0, grads)


def test_ops_recorded_in_several_threads_at_once_each_differentiate(mode):
    x0, w0 = _values(size=2000, seed=1)  # large enough for NumPy to release the GIL
    results: list[object] = [None] * 4

    def work(k):
        try:
            for _ in range(20):
                results[k] = _gradients(x0, w0)
        except Exception as e:  # noqa: BLE001  (reported below, in the main thread)
            results[k] = e

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first = results[0]
    assert not isinstance(first, Exception), first
    for other in results[1:]:
        assert not isinstance(other, Exception), other
        for a, b in zip(first, other):
            np.testing.assert_array_equal(a, b)
    small = _values(size=5, seed=1)
    _check_gradients(*small, _gradients(*small))


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
def test_fast_forms_give_nan_and_inf_as_values_under_the_users_raise_state(dtype):
    x = sg.tensor([0.0, -1.0, 1e30], dtype=dtype, requires_grad=True)
    zero = sg.tensor([0.0, 0.0, 0.0], dtype=dtype)
    old = np.seterr(all="raise")
    try:
        results = [x.log(), x.sqrt(), x / zero, 1.0 / zero, x * 1e300, x.exp() * x.exp(),
                   sg.tensor([1, 2]) // sg.tensor([0, 0])]
        state = np.geterr()
        with pytest.raises(FloatingPointError):  # the user's state is in force outside
            np.log(np.zeros(1))
    finally:
        np.seterr(**old)
    assert set(state.values()) == {"raise"}
    results = [r.detach() for r in results]
    assert np.isneginf(results[0].numpy()[0]) and np.isnan(results[0].numpy()[1])
    assert np.isnan(results[1].numpy()[1])
    assert np.isnan(results[2].numpy()[0]) and np.isinf(results[2].numpy()[2])
    assert np.isinf(results[3].numpy()).all()
    assert np.isinf(results[4].numpy()[2])


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
def test_matmul_and_numpys_own_reductions_run_in_the_quiet_context(dtype, monkeypatch):
    """``a @ b``, ``x.mean()``, ``x.sum()`` on float tensors call NumPy's own code in the
    per-thread context (``ops.computed_numpy``), not the error state set around them
    (``ops.computed``); overflow and 0/0 stay values under the user's raise state."""
    from srcgrad.tensor import fixed_ops

    big = 1e30 if dtype == sg.float32 else 1e200  # (its square overflows)
    a = sg.tensor([[big, 1.0], [0.0, 2.0]], dtype=dtype, requires_grad=True)
    v = sg.tensor([np.inf, -np.inf, 1.0], dtype=dtype, requires_grad=True)

    def refuse(*args, **kwargs):
        raise AssertionError("the set/reset quieting ran")

    monkeypatch.setattr(fixed_ops._ops, "computed", refuse)
    old = np.seterr(all="raise")
    try:
        product, mean, total = a @ a, v.mean(), (a * big).sum(1)
        QUIET.run(lambda: a @ a)  # (entered already: the reentrant fallback)
    finally:
        np.seterr(**old)
    assert np.isinf(product.detach().numpy()[0, 0]) and np.isnan(mean.item())
    assert np.isinf(total.detach().numpy()[0])
    product.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 2)) @ a.detach().numpy().T +
                                  a.detach().numpy().T @ np.ones((2, 2)))
