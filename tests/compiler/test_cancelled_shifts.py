"""A max subtracted for stability whose derivative is exactly 0 (``ad/shifts.py``, issue 16):
log-softmax, softmax and log-sum-exp are invariant under a shift constant along the axis,
so the max's adjoint is left out (no ``max_picks`` in the emitted code) and every mode
still matches central differences; wherever the shift could reach the result (a sum, a
square, another axis, a rank change, a loop) the adjoint stays and is right."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(1606)
Z = rng.standard_normal(12) * 1.5
Y = np.eye(3)[rng.integers(0, 3, 4)]
W = rng.standard_normal((4, 3))


def log_softmax_xent(p):
    z = np.reshape(p, (4, 3))
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * Y, axis=1))


def softmax_weighted(p):
    z = np.reshape(p, (4, 3))
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * W) + np.sum(np.sin(s))


def lse_minus_mean(p):
    # the lse added back, a min shift, a mean along the axis: the shift cancels overall
    z = np.reshape(p, (4, 3))
    m = np.min(z, axis=(1,), keepdims=True)
    lse = m + np.log(np.mean(np.exp(z - m), axis=1, keepdims=True))
    return np.sum((lse - z) ** 2 * W)


def lse_without_keepdims_by_labels(p):
    # the max without keepdims, put back by m[:, None] and added to the log again
    z = np.reshape(p, (4, 3))
    m = np.max(z, axis=1)
    lse = m + np.log(np.sum(np.exp(z - m[:, None]), axis=1))
    return np.sum(lse - z[np.arange(4), np.array([2, 0, 1, 1])])


INVARIANT = [log_softmax_xent, softmax_weighted, lse_minus_mean,
             lse_without_keepdims_by_labels]


def shift_also_squared(p):
    z = np.reshape(p, (4, 3))
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * Y, axis=1)) + np.sum(z ** 2)


def shift_summed_along_axis(p):
    # a sum (not a mean) of the shifted values changes by 3 * shift: no cancelling
    z = np.reshape(p, (4, 3))
    z = z - np.max(z, axis=1, keepdims=True)
    return np.sum(np.sin(z - np.sum(z, axis=1, keepdims=True)))


def shift_reduced_along_other_axis(p):
    z = np.reshape(p, (4, 3))
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    return np.sum(np.log(np.sum(e, axis=0, keepdims=True)) * W[:1])


def shift_without_keepdims(p):
    z = np.reshape(p, (4, 3))
    m = np.max(z, axis=1)
    return np.sum(np.exp(z - m[:, None]) * W)


def shift_not_added_back(p):
    # the log of the shifted sum without m: it still depends on the shift
    z = np.reshape(p, (4, 3))
    m = np.max(z, axis=1)
    return np.sum(np.log(np.sum(np.exp(z - m[:, None]), axis=1)) * W[:, 0])


def shift_in_a_loop(p):
    z = np.reshape(p, (4, 3))
    z = z - np.max(z, axis=1, keepdims=True)
    total = 0.0
    for k in range(2):
        total = total + np.sum(np.exp(z) * W) * (k + 1)
    return total


def shift_through_a_scaled_copy(p):
    z = np.reshape(p, (4, 3))
    z = 2.0 * (z - np.max(z, axis=1, keepdims=True))
    return np.sum(np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True) * W)


KEPT = [shift_also_squared, shift_summed_along_axis, shift_reduced_along_other_axis,
        shift_without_keepdims, shift_not_added_back, shift_in_a_loop]


@pytest.mark.parametrize("f", INVARIANT)
def test_shift_that_cancels_has_no_adjoint_in_the_emitted_gradient(f):
    text = sg.source(sg.grad(f), Z)
    assert "max_picks" not in text and "min_picks" not in text and "picked" not in text, text


@pytest.mark.parametrize("f", INVARIANT + KEPT + [shift_through_a_scaled_copy])
def test_max_shift_differentiates_in_every_mode(f):
    check_all_modes(f, Z)


@pytest.mark.parametrize("f", KEPT)
def test_shift_that_may_reach_the_result_keeps_its_adjoint(f):
    text = sg.source(sg.grad(f), Z)
    assert "max_picks" in text, text


def test_shift_that_cancels_at_a_tie_and_with_integer_labels_matches_differences():
    # a tie in a row (the max's adjoint would pick the first): the gradient is unchanged
    # since the loss does not depend on the shift; labels gathered by index
    labels = np.array([0, 2, 1, 1])

    def xent(z):
        z = z - np.max(z, axis=1, keepdims=True)
        logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
        return -np.mean(logp[np.arange(4), labels])

    z = np.reshape(Z, (4, 3)).copy()
    z[1, 2] = z[1, 0] = np.max(z[1]) + 0.5
    assert "max_picks" not in sg.source(sg.grad(xent), z)
    assert_close(sg.grad(xent)(z), numeric_gradient(xent, [z], {}, 0))
    value, tangent = sg.jvp(xent)(z, W)
    want = float(np.sum(numeric_gradient(xent, [z], {}, 0) * W))
    assert_close(tangent, want, rtol=1e-6, atol=1e-8)
