"""``sg.nn.functional`` without torch: each loss's value against its closed form and its
gradient (and a second-order product) against central finite differences, in float64."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient

F = sg.nn.functional
_rng = np.random.default_rng(21)
X = _rng.standard_normal((5, 3))
Y = _rng.standard_normal((5, 3))
P = _rng.uniform(0.1, 0.9, (5, 3))
T = _rng.uniform(0.0, 1.0, (5, 3))
IDX = np.array([0, 2, 1, 2, 0])


def _log_softmax(z, axis=1):
    m = z.max(axis, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis, keepdims=True))


def _softplus(z):
    return np.logaddexp(0.0, z)


def _gelu(z):
    from math import erf
    return z * 0.5 * (1 + np.vectorize(erf)(z / np.sqrt(2)))


# name -> (srcgrad function of a Tensor, NumPy closed form of an array, point)
CASES = {
    "mse_loss": (lambda x: F.mse_loss(x, sg.tensor(Y)), lambda x: np.mean((x - Y) ** 2), X),
    "l1_loss_sum": (lambda x: F.l1_loss(x, sg.tensor(Y), reduction="sum"),
                    lambda x: np.sum(np.abs(x - Y)), X),
    "smooth_l1_loss": (lambda x: F.smooth_l1_loss(x, sg.tensor(Y), beta=0.5),
                       lambda x: np.mean(np.where(np.abs(x - Y) < 0.5, (x - Y) ** 2,
                                                  np.abs(x - Y) - 0.25)), X),
    "binary_cross_entropy": (lambda x: F.binary_cross_entropy(x, sg.tensor(T)),
                             lambda x: -np.mean(T * np.log(x) + (1 - T) * np.log(1 - x)), P),
    "binary_cross_entropy_with_logits": (
        lambda x: F.binary_cross_entropy_with_logits(x, sg.tensor(T),
                                                     pos_weight=sg.tensor([1.0, 2.0, 3.0])),
        lambda x: np.mean(np.array([1.0, 2.0, 3.0]) * T * _softplus(-x)
                          + (1 - T) * _softplus(x)), X),
    "cross_entropy": (lambda x: F.cross_entropy(x, sg.tensor(IDX)),
                      lambda x: -np.mean(_log_softmax(x)[np.arange(5), IDX]), X),
    "cross_entropy_probs": (lambda x: F.cross_entropy(x, sg.tensor(T / T.sum(1, keepdims=True))),
                            lambda x: -np.sum(_log_softmax(x) * T / T.sum(1, keepdims=True)) / 5,
                            X),
    "nll_loss_weighted_sum": (
        lambda x: F.nll_loss(x, sg.tensor(IDX), weight=sg.tensor([1.0, 2.0, 0.5]),
                             reduction="sum"),
        lambda x: -np.sum(np.array([1.0, 2.0, 0.5])[IDX] * x[np.arange(5), IDX]), X),
    "gelu": (lambda x: F.gelu(x).sum(), lambda x: np.sum(_gelu(x)), X),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh").sum(),
                  lambda x: np.sum(0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                          * (x + 0.044715 * x ** 3)))), X),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_nn_loss_value_is_its_closed_form_and_gradient_matches_finite_differences(name):
    fn, closed, point = CASES[name]
    x = sg.tensor(point.copy(), requires_grad=True)
    out = fn(x)
    assert float(out) == pytest.approx(closed(point), rel=1e-12, abs=1e-12)
    out.backward()
    assert_close(x.grad.numpy(), numeric_gradient(closed, [point.copy()], None, 0))


# nll_loss is linear in x: its gradient is a constant, which PyTorch and srcgrad leave outside
# the graph, so there is no second derivative to take
@pytest.mark.parametrize("name", sorted(set(CASES) - {"nll_loss_weighted_sum"}))
def test_nn_loss_second_order_matches_finite_differences(name):
    fn, closed, point = CASES[name]
    v = np.linspace(-1.0, 1.0, point.size).reshape(point.shape)

    def grad_dot_v(p):
        x = sg.tensor(p, requires_grad=True)
        (g,) = sg.autograd.grad(fn(x), x, create_graph=True)
        return g, x

    g, x = grad_dot_v(point.copy())
    (hv,) = sg.autograd.grad((g * sg.tensor(v)).sum(), x)

    def gv(p):
        return float((grad_dot_v(p)[0].detach().numpy() * v).sum())

    assert_close(hv.numpy(), numeric_gradient(gv, [point.copy()], None, 0), rtol=1e-5,
                 atol=1e-6)


def test_nn_loss_reductions_and_ignore_index():
    x = sg.tensor(X, requires_grad=True)
    t = sg.tensor(IDX)
    none = F.cross_entropy(x, t, reduction="none", ignore_index=2)
    picked = -_log_softmax(X)[np.arange(5), IDX] * (IDX != 2)
    assert np.allclose(none.detach().numpy(), picked)
    mean = F.cross_entropy(x, t, ignore_index=2)
    assert float(mean) == pytest.approx(picked.sum() / (IDX != 2).sum())
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.mse_loss(x, x, reduction="avg")
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.nll_loss(x, sg.tensor([0, 1, 7, 0, 1]))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(x, sg.tensor(T))
