"""A factor constant along a sum is applied to the sum, not to every element before it
(issue 16, ``passes/sum_factors.py``): the adjoint of a softmax's or a normalisation's
``keepdims`` denominator sums the plain product and divides the small sum, and a negation
leaves any sum. The derivatives stay right in every mode, also where the rewrite must not
take the factor out (a divisor that is not a reduction of the summed value's shape)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(1618)
ROW = rng.uniform(0.5, 1.5, 4)
COL = rng.uniform(0.5, 1.5, (3, 1))


def softmax_rows(x):
    p = np.exp(x - np.max(x, axis=-1, keepdims=True))
    p = p / np.sum(p, axis=-1, keepdims=True)
    return np.sum(np.sin(p) * p)


def normalised_rows(x):
    return np.sum(np.cos(x / np.sqrt(np.sum(x * x, axis=1, keepdims=True))))


def scaled_by_its_column_sums(x):
    return np.sum(np.tanh(x * np.sum(x, axis=0, keepdims=True)))


def row_over_a_reduction_of_another_shape(x):
    # ROW / S: ROW (4,) is not of x's shape, so S's factor stays inside the sum
    return np.sum(np.sin(ROW / np.sum(x * x, axis=1, keepdims=True)))


def over_a_broadcast_column(x):
    # COL is an argument-free constant of shape (3, 1), not a reduction: only signs move
    return np.sum(np.sin(x / (COL + np.sum(x))))


CASES = [softmax_rows, normalised_rows, scaled_by_its_column_sums,
         row_over_a_reduction_of_another_shape, over_a_broadcast_column]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_sums_with_factors_taken_out_differentiate_in_all_modes(fn):
    check_all_modes(fn, rng.uniform(0.5, 1.5, (3, 4)))


def test_softmax_denominator_adjoint_divides_the_small_sum():
    sg.clear_cache()
    text = sg.source(sg.grad(softmax_rows), rng.uniform(0.5, 1.5, (3, 4)))
    # the sum of the plain product; no full-sized negation or division before the sum,
    # and its division by the (3, 1) sum combined with the numerator's (passes/quotients.py:
    # ``(g - sum(g * p)) * p``, no division left in the adjoint)
    assert "unbroadcast(-" not in text, text
    assert re.search(r"unbroadcast\(\w+ \* \w+, _t\d+\)", text), text
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum(line.count(" / ") for line in code) == 1, text  # the forward's own
