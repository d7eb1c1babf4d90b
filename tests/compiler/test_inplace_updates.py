"""A cotangent that dies where it is scaled, shifted or divided is updated in place
(``dp -= t``, ``dh *= 1 - h * h``, ``ds /= scale``) when the other operand provably fits
into it: a 0-d value, an array of its shape, or one shaped like a keepdims reduction of an
array of its shape (a softmax's row sums). No full-size buffer is allocated for it. Where
the other operand could broadcast the result wider, the plain expression stays. Every case
differentiates against central differences in reverse, forward and second order."""

from __future__ import annotations

import re

import numpy as np
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(65)


def softmax_scores(x):
    s = x @ x.T / np.sqrt(x.shape[-1])
    e = np.exp(s)
    p = e / e.sum(-1, keepdims=True)
    return np.sum(p * np.tanh(s))


def test_softmax_cotangents_are_updated_in_place_and_differentiate():
    x = rng.uniform(-1.0, 1.0, (4, 3))
    check_all_modes(softmax_scores, x)
    text = sg.source(sg.grad(softmax_scores), x)
    # p = e / z: the cotangent of e is (dp - sum(dp * p)) / z, and its product with e is
    # (dp - sum(dp * p)) * p (passes/quotients.py): one full-size array, no division, the
    # product made in de's array (a named matrix) and accumulated into ds in place
    assert re.search(r"de = dp - unbroadcast\(dp \* p, _t\d+\)", text), text
    assert "de *= p\n" in text and "ds += de\n" in text, text
    assert " /= " in text, text


B = rng.uniform(-1.0, 1.0, (2, 3))


def wider(a):
    h = np.tanh(a)
    u = h * 2.0
    w = u - B  # (3,) minus (2, 3): wider than u, so u's array cannot hold it
    z = B.sum(0, keepdims=True) * 3.0
    r = z / np.exp(w)  # a row of sums divided by a full array: wider than z
    return np.sum(np.tanh(r) ** 2)


def test_an_operand_that_may_broadcast_the_result_wider_is_not_updated_in_place():
    a = rng.uniform(-1.0, 1.0, (3,))
    check_all_modes(wider, a)
    text = sg.source(sg.grad(wider), a)
    assert "-= B" not in text and "z /= " not in text, text
