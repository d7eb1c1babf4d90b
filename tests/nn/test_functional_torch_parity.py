"""``sg.nn.functional`` against ``torch.nn.functional`` 2.13: values, gradients, node names,
float32 and float64 (skips without torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(5)
X = _rng.standard_normal((6, 4))
Y = _rng.standard_normal((6, 4))
P = _rng.uniform(0.05, 0.95, (6, 4))
Q = _rng.uniform(0.0, 1.0, (6, 4))
W4 = _rng.uniform(0.5, 2.0, 4)
IDX = np.array([0, 3, 1, 1, 2, 3])
PROBS = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)


def leaf(lib: Any, a: np.ndarray, dtype: str) -> Any:
    return lib.tensor(a.astype(dtype), requires_grad=True)


def const(lib: Any, a: np.ndarray, dtype: str | None = None) -> Any:
    return lib.tensor(a if dtype is None else a.astype(dtype))


def names(t: Any) -> list[str]:
    out, fn = [], t.grad_fn
    while fn is not None:
        out.append(type(fn).__name__)
        fn = next((n for n, _ in fn.next_functions if n is not None), None)
    return out


# Each case: (lib, dtype) -> (result, [leaves]); the leaves' gradients are compared too.
def c_linear(lib, dt):
    x, w, b = leaf(lib, X, dt), leaf(lib, Y[:3], dt), leaf(lib, W4[:3], dt)
    return lib.nn.functional.linear(x, w, b), [x, w, b]


def c_linear_nobias(lib, dt):
    x, w = leaf(lib, X, dt), leaf(lib, Y[:3], dt)
    return lib.nn.functional.linear(x, w), [x, w]


def c_linear_3d(lib, dt):
    x, w, b = leaf(lib, X.reshape(2, 3, 4), dt), leaf(lib, Y[:3], dt), leaf(lib, W4[:3], dt)
    return lib.nn.functional.linear(x, w, b), [x, w, b]


def c_gelu(lib, dt):
    x = leaf(lib, X, dt)
    return lib.nn.functional.gelu(x), [x]


def c_gelu_tanh(lib, dt):
    x = leaf(lib, X, dt)
    return lib.nn.functional.gelu(x, approximate="tanh"), [x]


def c_activations(lib, dt):
    x = leaf(lib, X, dt)
    F = lib.nn.functional
    return (F.relu(x) + F.sigmoid(x) * F.tanh(x) + F.softmax(x, dim=1)
            + F.log_softmax(x, dim=0)), [x]


def _red(make):
    return [lambda lib, dt, r=r: make(lib, dt, r) for r in ("mean", "sum", "none")]


def c_mse(lib, dt, r):
    x, y = leaf(lib, X, dt), leaf(lib, Y, dt)
    return lib.nn.functional.mse_loss(x, y, reduction=r), [x, y]


def c_l1(lib, dt, r):
    x, y = leaf(lib, X, dt), leaf(lib, Y, dt)
    return lib.nn.functional.l1_loss(x, y, reduction=r), [x, y]


def c_smooth_l1(lib, dt, r):
    x, y = leaf(lib, X, dt), leaf(lib, Y, dt)
    return lib.nn.functional.smooth_l1_loss(x, y, reduction=r, beta=0.7), [x, y]


def c_smooth_l1_beta0(lib, dt, r):
    x = leaf(lib, X, dt)
    return lib.nn.functional.smooth_l1_loss(x, const(lib, Y, dt), reduction=r, beta=0.0), [x]


def c_bce(lib, dt, r):
    p, t = leaf(lib, P, dt), leaf(lib, Q, dt)
    return lib.nn.functional.binary_cross_entropy(p, t, reduction=r), [p, t]


def c_bce_weight(lib, dt, r):
    p = leaf(lib, P, dt)
    return lib.nn.functional.binary_cross_entropy(p, const(lib, Q, dt), const(lib, W4, dt),
                                                  reduction=r), [p]


def c_bce_logits(lib, dt, r):
    x, t = leaf(lib, X * 5, dt), leaf(lib, Q, dt)
    return lib.nn.functional.binary_cross_entropy_with_logits(x, t, reduction=r), [x, t]


def c_bce_logits_weights(lib, dt, r):
    x, t = leaf(lib, X * 5, dt), leaf(lib, Q, dt)
    return lib.nn.functional.binary_cross_entropy_with_logits(
        x, t, weight=const(lib, W4, dt), pos_weight=const(lib, W4[::-1].copy(), dt),
        reduction=r), [x, t]


def c_nll(lib, dt, r):
    x = leaf(lib, X, dt)
    return lib.nn.functional.nll_loss(x, const(lib, IDX), reduction=r), [x]


def c_ce(lib, dt, r):
    x = leaf(lib, X, dt)
    return lib.nn.functional.cross_entropy(x, const(lib, IDX), reduction=r), [x]


def c_ce_weight_ignore(lib, dt, r):
    x = leaf(lib, X, dt)
    return lib.nn.functional.cross_entropy(x, const(lib, IDX), weight=const(lib, W4, dt),
                                           ignore_index=1, reduction=r), [x]


def c_ce_smoothing(lib, dt, r):
    x = leaf(lib, X, dt)
    return lib.nn.functional.cross_entropy(x, const(lib, IDX), weight=const(lib, W4, dt),
                                           ignore_index=3, label_smoothing=0.2,
                                           reduction=r), [x]


def c_ce_probs(lib, dt, r):
    x, t = leaf(lib, X, dt), leaf(lib, PROBS, dt)
    return lib.nn.functional.cross_entropy(x, t, reduction=r), [x, t]


def c_ce_probs_smoothing_weight(lib, dt, r):
    x = leaf(lib, X, dt)
    return lib.nn.functional.cross_entropy(x, const(lib, PROBS, dt), weight=const(lib, W4, dt),
                                           label_smoothing=0.1, reduction=r), [x]


def c_ce_1d(lib, dt, r):
    x = leaf(lib, X[0], dt)
    return lib.nn.functional.cross_entropy(x, const(lib, np.array(2)), reduction=r), [x]


def c_ce_3d(lib, dt, r):
    x = leaf(lib, X.reshape(2, 4, 3), dt)
    return lib.nn.functional.cross_entropy(x, const(lib, IDX.reshape(2, 3)), reduction=r), [x]


CASES = {f.__name__: f for f in (c_linear, c_linear_nobias, c_linear_3d, c_gelu, c_gelu_tanh,
                                 c_activations)}
for _make in (c_mse, c_l1, c_smooth_l1, c_smooth_l1_beta0, c_bce, c_bce_weight, c_bce_logits,
              c_bce_logits_weights, c_nll, c_ce, c_ce_weight_ignore, c_ce_smoothing, c_ce_probs,
              c_ce_probs_smoothing_weight, c_ce_1d, c_ce_3d):
    for _r, _f in zip(("mean", "sum", "none"), _red(_make)):
        CASES[f"{_make.__name__}-{_r}"] = _f


def _run(lib, case, dt):
    out, leaves = case(lib, dt)
    seed = np.linspace(0.5, 1.5, int(np.prod(out.shape))).reshape(tuple(out.shape))
    out.backward(lib.tensor(seed.astype(dt)))
    return out, [np.asarray(v.grad.detach().numpy() if lib is torch else v.grad.numpy())
                 for v in leaves]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_nn_functional_matches_torch_values_gradients_and_node_names(name, dt):
    ours, our_grads = _run(sg, CASES[name], dt)
    theirs, their_grads = _run(torch, CASES[name], dt)
    tol = 1e-10 if dt == "float64" else 2e-5
    assert str(ours.dtype).split(".")[-1] == dt
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                               atol=tol)
    for a, b in zip(our_grads, their_grads):
        assert a.dtype == np.dtype(dt)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    if "linear_3d" not in name and "linear_nobias" not in name:
        assert names(ours) == names(theirs)


def test_nn_functional_node_arity_matches_torch():
    for lib in (sg, torch):
        x = leaf(lib, X, "float64")
        out = lib.nn.functional.mse_loss(x, const(lib, Y, "float64"))
        edges = [n is None for n, _ in out.grad_fn.next_functions]
        assert edges == [False, True], lib
        w = leaf(lib, Y[:3], "float64")
        out = lib.nn.functional.linear(x, w, leaf(lib, W4[:3], "float64"))
        assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == [
            "AccumulateGrad", "AccumulateGrad", "TBackward0"]


@pytest.mark.parametrize("name", ["c_gelu", "c_mse-mean", "c_bce-sum", "c_bce_logits_weights-mean",
                                  "c_smooth_l1-none", "c_ce-mean", "c_ce_probs-mean"])
def test_nn_functional_second_order_matches_torch(name):
    def hvp(lib):
        out, leaves = CASES[name](lib, "float64")
        x = leaves[0]
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        return np.asarray(h.detach().numpy())

    np.testing.assert_allclose(hvp(sg), hvp(torch), rtol=1e-9, atol=1e-10)


def test_bce_at_zero_and_one_matches_torch_clamps():
    p = np.array([0.0, 1.0, 0.5, 1.0])
    t = np.array([1.0, 0.0, 0.5, 1.0])
    got = []
    for lib in (sg, torch):
        x = leaf(lib, p, "float64")
        out = lib.nn.functional.binary_cross_entropy(x, const(lib, t, "float64"), reduction="sum")
        out.backward()
        got.append((float(out.detach().numpy()), x.grad.numpy().copy()))
    assert got[0][0] == pytest.approx(got[1][0])
    np.testing.assert_allclose(got[0][1], got[1][1])


def test_bce_with_logits_is_finite_at_extreme_logits_like_torch():
    z = np.array([-800.0, 800.0, 0.0, 50.0])
    t = np.array([1.0, 0.0, 0.5, 1.0])
    got = []
    for lib in (sg, torch):
        x = leaf(lib, z, "float64")
        out = lib.nn.functional.binary_cross_entropy_with_logits(x, const(lib, t, "float64"))
        out.backward()
        got.append((float(out.detach().numpy()), x.grad.numpy().copy()))
    assert np.isfinite(got[0][0]) and np.all(np.isfinite(got[0][1]))
    assert got[0][0] == pytest.approx(got[1][0], rel=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12)


@pytest.mark.parametrize("make, inputs", [
    (lambda nn, lib: nn.MSELoss(), lambda lib: (leaf(lib, X, "float64"), const(lib, Y))),
    (lambda nn, lib: nn.L1Loss(reduction="sum"),
     lambda lib: (leaf(lib, X, "float64"), const(lib, Y))),
    (lambda nn, lib: nn.SmoothL1Loss(beta=0.5),
     lambda lib: (leaf(lib, X, "float64"), const(lib, Y))),
    (lambda nn, lib: nn.CrossEntropyLoss(weight=const(lib, W4), label_smoothing=0.1),
     lambda lib: (leaf(lib, X, "float64"), const(lib, IDX))),
    (lambda nn, lib: nn.NLLLoss(ignore_index=1),
     lambda lib: (leaf(lib, X, "float64"), const(lib, IDX))),
    (lambda nn, lib: nn.BCELoss(), lambda lib: (leaf(lib, P, "float64"), const(lib, Q))),
    (lambda nn, lib: nn.BCEWithLogitsLoss(pos_weight=const(lib, W4)),
     lambda lib: (leaf(lib, X, "float64"), const(lib, Q))),
    (lambda nn, lib: nn.LogSoftmax(dim=1), lambda lib: (leaf(lib, X, "float64"),)),
    (lambda nn, lib: nn.Softmax(dim=0), lambda lib: (leaf(lib, X, "float64"),)),
])
def test_nn_loss_modules_match_torch(make, inputs):
    got = []
    for lib in (sg, torch):
        args = inputs(lib)
        out = make(lib.nn, lib)(*args)
        out.sum().backward()
        got.append((out.detach().numpy().copy(), args[0].grad.numpy().copy(),
                    type(out.grad_fn).__name__))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12, atol=1e-12)
    assert got[0][2] == got[1][2]
