"""``x.sum(...)`` and ``x.prod(...)`` on an ndarray call the ufunc's ``reduce`` that
NumPy's sum and prod would call (``tensor.fixed_ops``), in this thread's quiet context:
NumPy's values exactly, gradients, and overflow as a silent value."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from tests.fd import numeric_gradient


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


CASES = [((), {}), ((5,), {}), ((5,), {"dim": 0}), ((3, 4), {"dim": -1, "keepdim": True}),
         ((2, 3, 4), {"dim": (0, 2)}), ((2, 3), {"dim": None}), ((3, 4), {"keepdim": True})]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method, numpy", [("sum", np.sum), ("prod", np.prod)])
@pytest.mark.parametrize("shape, kwargs", CASES)
def test_sum_and_prod_give_numpys_values_and_gradients(mode, shape, kwargs, method, numpy,
                                                       dtype):
    x0 = np.random.default_rng(2).uniform(0.5, 1.5, shape).astype(dtype)
    axis = kwargs.get("dim")
    if method == "prod" and isinstance(axis, tuple):
        pytest.skip("prod takes one dim (PyTorch)")
    keep = kwargs.get("keepdim", False)
    expected = numpy(x0, axis=axis, keepdims=keep)
    for _ in range(2):  # (the second call through the form made by the first)
        x = sg.tensor(x0, requires_grad=True)
        y = getattr(x, method)(**kwargs)
        np.testing.assert_array_equal(y.detach().numpy(), expected)
        assert y.dtype == x.dtype
        (y * y).sum().backward()
    fn = lambda v: float((numpy(v, axis=axis, keepdims=keep) ** 2).sum())  # noqa: E731
    tol = 1e-6 if dtype == np.float64 else 2e-3
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(fn, (x0,), None, 0), rtol=tol,
                               atol=tol)


def test_a_sum_that_overflows_is_inf_silently_under_the_users_raise_state(mode):
    x = sg.tensor([3e38, 3e38], requires_grad=True)
    old = np.seterr(all="raise")
    try:
        s, p = x.sum(), x.prod()
        state = np.geterr()
    finally:
        np.seterr(**old)
    assert set(state.values()) == {"raise"}
    assert np.isinf(s.item()) and np.isinf(p.item())
