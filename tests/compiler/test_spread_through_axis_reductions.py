"""A mean's (or full sum's) cotangent stays one number through a reduction over an axis
below it (issue 16, ``passes/spread.py``): ``np.mean(np.sum(z * y, axis=1))`` multiplies
``y`` by ``1/n`` instead of filling an ``(n,)`` array, reshaping it to ``(n, 1)`` and
copying it out to ``(n, k)``. Right when a partner broadcasts (a row of weights), with
keepdims, over the first axis, and in every mode against central differences."""

from __future__ import annotations

import numpy as np
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(1633)
Y = rng.standard_normal((6, 4))
W = rng.standard_normal(4)
Z0 = rng.standard_normal((6, 4))


def mean_of_row_sums(z, y):
    return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * y, axis=1))


def mean_of_row_sums_kept(z):
    return np.mean(np.sum(z * W, axis=1, keepdims=True) ** 2 + np.sum(z * Y, 1, keepdims=True))


def sum_of_column_sums(z):
    return np.sum(np.sum(np.sin(z) * W, axis=0))


def mean_of_row_sums_flat(z):
    return mean_of_row_sums(z, Y)


def test_mean_of_row_sums_multiplies_by_one_number_instead_of_filling():
    text = sg.source(sg.grad(mean_of_row_sums), Z0, Y)
    assert "unreduce(" not in text, text
    got = sg.grad(mean_of_row_sums, wrt=(0, 1))(Z0, Y)
    for place in range(2):
        assert_close(got[place], numeric_gradient(mean_of_row_sums, (Z0, Y), None, place))


def test_row_sums_under_a_mean_differentiate_in_every_mode():
    check_all_modes(mean_of_row_sums_flat, Z0)


def test_row_sums_with_a_broadcast_row_of_weights_and_keepdims_differentiate():
    check_all_modes(mean_of_row_sums_kept, Z0)


def test_column_sums_under_a_sum_with_broadcast_weights_differentiate():
    check_all_modes(sum_of_column_sums, Z0)


def test_weights_broadcast_along_the_reduced_rows_get_summed_gradients():
    def loss(z, w):
        return np.mean(np.sum(z * w, axis=1))

    got = sg.grad(loss, wrt=(0, 1))(Z0, W)
    assert got[1].shape == W.shape
    for place in range(2):
        assert_close(got[place], numeric_gradient(loss, (Z0, W), None, place))
