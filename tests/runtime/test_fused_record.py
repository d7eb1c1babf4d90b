"""An elementwise op that records writes its plan's quick builder into itself
(``tensor.elementwise``): the same nodes, saved values, version checks and gradients as
the builder it replaces, for every call form, in the operator methods that share the op,
and after the code generator is switched off and on again."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from tests.fd import numeric_gradient

FORMS = {
    "tensor op tensor": lambda op, x, w: op(x, w),
    "tensor op number": lambda op, x, w: op(x, 0.75) * w,
    "number op tensor": lambda op, x, w: op(1.25, x) * w,
    "reflected operator": lambda op, x, w: op(x, w) + 0.5 * (w * x) + (2.0 - x) * 3.0,
}
OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: abs(a) ** b if not isinstance(a, float)
    else a ** b,
    "maximum": lambda a, b: sg.maximum(a if not isinstance(a, float) else sg.tensor(a),
                                       b if not isinstance(b, float) else sg.tensor(b)),
}
UNARY = ["exp", "tanh", "relu", "sigmoid", "sin", "sqrt", "neg"]


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _values(dtype):
    rng = np.random.default_rng(11)
    x0 = rng.uniform(0.5, 2.0, 5).astype(dtype)
    w0 = rng.uniform(0.5, 2.0, 5).astype(dtype)
    return x0, w0


def _check(program, dtype, which=(0, 1), rtol=1e-6):
    x0, w0 = _values(dtype)

    def fn(x, w):
        return program(sg.tensor(x), sg.tensor(w)).sum().item()

    for _ in range(2):  # the first call makes the plans and writes them in; the second runs them
        leaves = [sg.tensor(v, requires_grad=k in which) for k, v in enumerate((x0, w0))]
        program(*leaves).sum().backward()
    for k in which:
        expected = numeric_gradient(fn, (x0.astype(np.float64), w0.astype(np.float64)), None, k)
        tol = rtol if dtype == np.float64 else 2e-3
        np.testing.assert_allclose(leaves[k].grad.numpy(), expected, rtol=tol, atol=tol)
        assert leaves[k].grad.dtype == leaves[k].dtype
    for k in set((0, 1)) - set(which):
        assert leaves[k].grad is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("which", [(0, 1), (0,), (1,)])
@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", list(OPS))
def test_binary_ops_that_record_give_gradients_in_every_call_form(mode, name, form, which,
                                                                  dtype):
    op = OPS[name]
    _check(lambda x, w: FORMS[form](op, x, w), dtype, which)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_that_record_give_gradients(mode, name, dtype):
    _check(lambda x, w: getattr(x * w, name)() * w, dtype)


def test_gradients_stay_right_when_the_generator_is_switched_off_and_on_again():
    previous = set_specialized(True)
    try:
        program = lambda x, w: ((x * w + 0.5).exp().tanh() * 0.5 - x) / w  # noqa: E731
        for flag in (True, False, True):
            set_specialized(flag)
            _check(program, np.float64)
    finally:
        set_specialized(previous)


def test_a_saved_input_changed_in_place_is_an_error_in_backward(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):  # (the second time through the written-in builder)
        u = x * 1.0
        y = x * u
        u.mul_(2.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_a_saved_result_changed_in_place_is_an_error_in_backward(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        y = (x * 1.0).exp()  # exp's backward reads its result
        y.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_a_result_has_its_own_version_counter_and_history(mode):
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 2.0, x * 2.0
    assert a._vc is not b._vc and a._version == b._version == 0
    assert a.grad_fn is not b.grad_fn and a.requires_grad and not a.is_leaf
    assert type(a.grad_fn).__name__ == "MulBackward0"
    with sg.no_grad():
        c = x * 2.0
    assert c.grad_fn is None and not c.requires_grad
