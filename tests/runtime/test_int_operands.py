"""A Python int meeting a float tensor in the usual binary forms is passed as the shared
0-d array of its value and the tensor's dtype (``tensor.elementwise``), as a float is:
the same values, dtypes and gradients as NumPy's own cast of the weak int, bit for bit;
ints beyond 2**24 (not exact in float32) stay Python ints."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.tensor.operands import S32, S64

INTS = [2, -3, 1, 0, 7, 2 ** 24, -(2 ** 24), 2 ** 24 + 1, 2 ** 40 + 1]
OPS = {
    "mul": (lambda t, n: t * n, lambda a, n: a * n),
    "rmul": (lambda t, n: n * t, lambda a, n: n * a),
    "add": (lambda t, n: t + n, lambda a, n: a + n),
    "rsub": (lambda t, n: n - t, lambda a, n: n - a),
    "div": (lambda t, n: t / n, lambda a, n: a / n),
    "rdiv": (lambda t, n: n / t, lambda a, n: np.reciprocal(a) * n),  # (as PyTorch)
    "pow": (lambda t, n: t ** n, lambda a, n: np.power(a, n)),
    "rpow": (lambda t, n: n ** t, lambda a, n: np.power(n, a)),
}


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(OPS))
def test_int_operands_give_numpys_values_and_the_float_forms_gradient(op, dtype, mode):
    fn, ref = OPS[op]
    x0 = np.array([0.5, 1.25, 3.0, 0.75], dtype)
    with np.errstate(all="ignore"):
        for n in INTS:
            x = sg.tensor(x0, requires_grad=True)
            y = fn(x * 1.0, n)
            want = ref(x0, n)
            assert y.dtype == dtype and want.dtype == dtype
            np.testing.assert_array_equal(y.detach().numpy(), want, err_msg=str(n))
            y.sum().backward()
            # the same gradient as the same op with the number written as a float
            # (exact: these ints are floats of the dtype; 2**40 + 1 is not one in float32)
            x2 = sg.tensor(x0, requires_grad=True)
            fn(x2 * 1.0, float(dtype(n))).sum().backward()
            if dtype(n) == n:
                np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy(), err_msg=str(n))
            assert x.grad.dtype == dtype


def test_small_ints_are_the_shared_constants_and_large_ones_stay_ints():
    x = sg.tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
    y = x * 3
    assert y.grad_fn.saved_values()["y"] is S32[3.0] and S32[3.0].dtype == np.float32
    z = sg.tensor([1.0, 2.0], requires_grad=True) - 5
    assert z.grad_fn is not None
    w = 3 * sg.tensor([1.0, 2.0], requires_grad=True)
    assert w.grad_fn.saved_values()["y"] is S32[3.0]  # (__rmul__ is __mul__; float32)
    w64 = sg.tensor(np.array([1.0, 2.0]), requires_grad=True) / 4
    assert w64.grad_fn.saved_values()["y"] is S64[4.0] and S64[4.0].dtype == np.float64
    big = x * (2 ** 24 + 1)
    assert type(big.grad_fn.saved_values()["y"]) is int
