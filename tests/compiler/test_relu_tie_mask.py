"""``np.maximum``/``np.minimum``'s adjoint as a mask (issue 16, ``rules/ties.py``): one
``np.where`` where nothing ties (``taken``, an elementwise primitive of its own), the same numbers as the tie rule written out (a tie
shares half; an infinite cotangent gives 0 where the other input was taken), for relu
written ``np.maximum(h, 0)`` in a small MLP in every mode, and through the runtime."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes, split_parameters
from fd import assert_close, numeric_gradient

import srcgrad as sg
from srcgrad.rules.ties import larger_picks, taken

rng = np.random.default_rng(1635)


def tie_rule_written_out(g, x, y):
    return np.where(x > y, g, np.where(x == y, g / 2, 0))


def maximum_of(x, y):
    return np.maximum(x, y)


def minimum_of(x, y):
    return np.minimum(x, y)


def test_mask_without_ties_and_weights_with_ties():
    x = rng.standard_normal((5, 4))
    picks = larger_picks(x, 0.0)
    assert picks.dtype == bool
    np.testing.assert_array_equal(picks, x > 0)
    x[1, 2] = 0.0
    np.testing.assert_array_equal(larger_picks(x, 0.0), (x > 0) + 0.5 * (x == 0))


def test_taken_is_the_tie_rule_and_keeps_the_cotangents_dtype():
    x = rng.standard_normal((4, 3))
    x[0, 0] = 0.0
    g = rng.standard_normal((4, 3)).astype(np.float32)
    g[1, 1] = np.inf
    got = taken(g, larger_picks(x, 0.0))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, tie_rule_written_out(g, x, 0.0))


U = np.array([-1.0, 0.25, 0.3, 2.0])


def broadcast_max_poly(p):
    # a scalar w against an array: np.maximum(w, u) takes w in some lanes, u in others
    u = U * p[1:]
    return np.sum(np.maximum(p[0], u) ** 2 * u) + np.sum(np.minimum(u, p[0]) ** 3)


def test_scalar_broadcast_against_an_array_differentiates_in_every_mode():
    # forward mode sends w's tangent (a scalar) through taken(), whose result has u's shape;
    # reverse over forward sums its cotangent back to the scalar (the engine's unbroadcast)
    check_all_modes(broadcast_max_poly, np.array([0.3, 1.0, 1.6, 0.9, 1.1]))


@pytest.mark.parametrize("f, sign", [(maximum_of, 1.0), (minimum_of, -1.0)])
def test_adjoint_is_the_tie_rule_with_ties_broadcasting_and_infinite_cotangents(f, sign):
    x = rng.standard_normal((6, 3))
    y = rng.standard_normal(3)
    x[0, 1], x[2, 0] = y[1], y[0]  # ties
    g = rng.standard_normal((6, 3))
    g[3, 2], g[4, 1] = np.inf, -np.inf
    dx, dy = sg.vjp(f, wrt=(0, 1))(x, y, seed=g)
    # maximum takes x where x > y; minimum where -x > -y
    want_x = tie_rule_written_out(g, sign * x, sign * y)
    want_y = np.sum(tie_rule_written_out(g, sign * y, sign * x), axis=0)
    np.testing.assert_array_equal(dx, want_x)
    np.testing.assert_array_equal(dy, want_y)


def test_relu_mlp_source_selects_once_and_has_no_halving():
    text = sg.source(sg.grad(relu_mlp, wrt=(0, 1, 2, 3)), *unpack(P), X, Y)
    # (the helpers' versions for known ndarrays: the arguments are float64 arrays)
    assert "taken_array(" in text and "larger_picks_array(" in text and "/ 2" not in text, text


X = rng.standard_normal((20, 3))
Y = np.eye(4)[rng.integers(0, 4, 20)] * 0.9
SIZES = ((3, 7), (7,), (7, 4), (4,))


def unpack(p):
    return split_parameters(p, SIZES)


def relu_mlp(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * y, axis=1)) + 0.1 * np.sum(np.minimum(W1, 0.2) ** 2)


def relu_mlp_flat(p):
    return relu_mlp(*unpack(p), X, Y)


P = rng.standard_normal(sum(int(np.prod(s)) for s in SIZES)) * 0.7


def test_relu_mlp_differentiates_in_every_mode():
    check_all_modes(relu_mlp_flat, P)


def test_relu_mlp_gradients_by_argument_match_central_differences():
    args = (*unpack(P), X, Y)
    got = sg.grad(relu_mlp, wrt=(0, 1, 2, 3))(*args)
    for place in range(4):
        assert_close(got[place], numeric_gradient(relu_mlp, args, None, place))


def test_runtime_relu_by_maximum_shares_a_tie_and_differentiates_twice():
    x = sg.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    (g,) = sg.autograd.grad(sg.sum(sg.maximum(x, 0.0) ** 2), [x], create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 0.0, 4.0])
    (h,) = sg.autograd.grad(sg.sum(g), [x])
    np.testing.assert_array_equal(h.numpy(), [0.0, 0.5, 2.0])
