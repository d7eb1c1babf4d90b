"""A max subtracted for stability inside a loop or branch body (``ad/shifts.py`` reads every
block): where the body's softmax or log-sum-exp does not depend on the shift, the max's
adjoint is left out of the reverse loop as it is at top level; where the shift can reach
what the body yields (a carried total, a collected value, a nested body), it stays. Every
case matches central differences in every mode."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(1616)
Z = rng.standard_normal(12) * 1.5
W = rng.standard_normal((2, 6))


def softmax_per_row_in_a_loop(p):
    z = np.reshape(p, (2, 6))
    total = 0.0
    for b in range(2):
        e = np.exp(z[b] - np.max(z[b], axis=-1, keepdims=True))
        s = e / np.sum(e, axis=-1, keepdims=True)
        total = total + np.sum(s * W[b])
    return total


def log_softmax_per_row_in_a_loop(p):
    z = np.reshape(p, (2, 6))
    total = 0.0
    for b in range(2):
        zb = z[b] - np.max(z[b], axis=0, keepdims=True)
        logp = zb - np.log(np.sum(np.exp(zb), axis=0, keepdims=True))
        total = total + np.sum(logp * W[b])
    return total


def _softmax_rows(z):
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def softmax_in_a_branch(p):
    z = np.reshape(p, (2, 6))
    if np.sum(p) > -100.0:
        # (in a helper: a name assigned in the branch itself is an output of the ``if``)
        out = np.sum(_softmax_rows(z) * W)
    else:
        out = np.sum(z)
    return out


CANCELLED = [softmax_per_row_in_a_loop, log_softmax_per_row_in_a_loop, softmax_in_a_branch]


def shift_carried_in_a_loop(p):
    # the shifted values themselves reach the carried total: the max's adjoint is needed
    z = np.reshape(p, (2, 6))
    total = 0.0
    for b in range(2):
        zb = z[b] - np.max(z[b], axis=-1, keepdims=True)
        total = total + np.sum(np.sin(zb) * W[b])
    return total


def shift_yielded_by_a_loop(p):
    # the shifted row is the loop's carried value (a block result): kept
    z = np.reshape(p, (2, 6))
    acc = np.zeros(6)
    for b in range(2):
        acc = z[b] - np.max(z[b], axis=-1, keepdims=True)
    return np.sum(np.exp(acc) * W[0])


def shift_read_in_a_nested_loop(p):
    z = np.reshape(p, (2, 6))
    total = 0.0
    for b in range(2):
        zb = z[b] - np.max(z[b], axis=-1, keepdims=True)
        for k in range(2):
            total = total + np.sum(np.exp(zb) * W[k])
    return total


KEPT = [shift_carried_in_a_loop, shift_yielded_by_a_loop, shift_read_in_a_nested_loop]


@pytest.mark.parametrize("f", CANCELLED)
def test_shift_that_cancels_in_a_body_has_no_adjoint_in_the_emitted_gradient(f):
    text = sg.source(sg.grad(f), Z)
    assert "max_picks" not in text and "picked" not in text, text


@pytest.mark.parametrize("f", KEPT)
def test_shift_in_a_body_that_may_reach_what_it_yields_keeps_its_adjoint(f):
    text = sg.source(sg.grad(f), Z)
    assert "max_picks" in text, text


@pytest.mark.parametrize("f", CANCELLED + KEPT)
def test_shift_in_a_body_differentiates_in_every_mode(f):
    check_all_modes(f, Z)
