"""np.maximum/np.minimum's adjoint when one input is a scalar broadcast against the other,
under forward mode and the reverse sweep over it (the fuzzer's derived_jvp 5000096 found a
mask form of the tie rule that returned the array's shape for the scalar): against
central differences, ties away from the point."""

from __future__ import annotations

import numpy as np
from fd import assert_close, numeric_gradient

import srcgrad as sg


def _max_times_w(u, w=0.5):
    return np.maximum(w, u) * w + np.minimum(u, w)


def _tangent_of_max(x):
    # the scalar w's tangent broadcasts against u in the maximum's forward rule; the reverse
    # sweep over that tangent must sum its cotangent back to w's shape
    w = np.tanh(np.sum(x))
    _, tangent = sg.jvp(_max_times_w, wrt=("u", "w"))(x, (np.abs(x) + 0.1, np.sin(w)), w=w)
    return np.sum(tangent * x)


def test_reverse_over_forward_of_maximum_with_a_broadcast_scalar_matches_differences():
    x = np.array([0.9, -0.4, 0.2, 1.3])
    assert_close(sg.grad(_tangent_of_max)(x), numeric_gradient(_tangent_of_max, [x], {}, 0))


def test_gradient_of_a_broadcast_scalar_through_maximum_is_a_scalar_sum():
    def loss(x, w):
        return np.sum(np.maximum(x, w) ** 2 + np.minimum(w, x))

    x, w = np.array([0.9, -0.4, 0.2, 1.3]), 0.35
    dx, dw = sg.grad(loss, wrt=(0, 1))(x, w)
    assert type(dw) is float
    assert_close(dx, numeric_gradient(loss, (x, w), None, 0))
    assert_close(dw, numeric_gradient(loss, (x, w), None, 1))
