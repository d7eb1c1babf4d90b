"""A softmax cross-entropy written with integer labels and a row statistic indexed
``m[:, None]`` (issue 16): the gather ``z[np.arange(n), labels]`` is typed (its index tuple,
built at run time, is typed from its items), so ``grad``'s seed is the number 1 and the
loss itself is not computed; ``m[:, None]``'s adjoint is a reshape, not zeros plus an
indexed add; a max's cotangent reaches the picked elements by a reshape, not
``np.expand_dims``. Each against the general path or central differences in every mode."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes, split_parameters
from fd import assert_close, numeric_gradient

import srcgrad as sg
from srcgrad.rules.helpers import scatter_add
from srcgrad.rules.reductions import max_picks, picked

rng = np.random.default_rng(1634)


@pytest.mark.parametrize("shape, index", [
    ((5,), (slice(None), None)), ((5,), (None,)), ((5,), None), ((4, 3), (Ellipsis, None)),
    ((4, 3), (slice(None), None, slice(None))), ((4, 3), (None, Ellipsis, None)),
])
def test_adjoint_of_an_index_inserting_axes_is_the_general_scatter(shape, index):
    x = rng.standard_normal(np.zeros(shape)[index].shape)
    want = np.zeros(shape)
    want[index] += x
    got = scatter_add(x, shape, index)
    np.testing.assert_array_equal(got, want)
    assert got.shape == shape and not np.shares_memory(got, x)


def test_index_with_a_partial_slice_keeps_the_general_scatter():
    x = rng.standard_normal((3, 1))
    want = np.zeros(5)
    want[1:4, None][:, 0] += x[:, 0]
    np.testing.assert_array_equal(scatter_add(x, (5,), (slice(1, 4), None)), want)


@pytest.mark.parametrize("shape, axis", [((6, 3), 1), ((6, 3), 0), ((6, 3), -1), ((6, 3), (1,)),
                                         ((2, 4, 3), 1), ((2, 4, 3), 2)])
def test_max_cotangent_without_keepdims_reaches_the_picks_as_expand_dims_would(shape, axis):
    x = rng.standard_normal(shape)
    x[0, 0] = x[0, 1] = x[0].max() + 1.0  # a tie
    out = np.max(x, axis=axis)
    g = rng.standard_normal(out.shape)
    picks = max_picks(x, out, axis)
    a = axis[0] if isinstance(axis, tuple) else axis
    want = np.where(picks, np.expand_dims(g, a), 0) if picks.dtype == bool else \
        np.where(picks != 0, np.expand_dims(g, a), 0) * picks
    np.testing.assert_array_equal(picked(g, picks, axis), want)


X = rng.standard_normal((30, 3))
LABELS = rng.integers(0, 4, 30)
SIZES = ((3, 6), (6,), (6, 4), (4,))


def unpack(p):
    return split_parameters(p, SIZES)


def xent_by_labels(W1, b1, W2, b2, x, labels):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    m = np.max(z, axis=1)
    lse = m + np.log(np.sum(np.exp(z - m[:, None]), axis=1))
    return np.sum(lse - z[np.arange(x.shape[0]), labels])


def xent_by_labels_flat(p):
    return xent_by_labels(*unpack(p), X, LABELS)


P = rng.standard_normal(sum(int(np.prod(s)) for s in SIZES)) * 0.7


def test_labels_gather_is_typed_so_the_seed_is_one_and_the_loss_is_not_computed():
    text = sg.source(sg.grad(xent_by_labels, wrt=(0, 1, 2, 3)), *unpack(P), X, LABELS)
    assert "seed_one(" not in text and "np.shape(" not in text, text


def test_labels_gather_adjoint_is_known_float64_and_shaped_so_no_cast_is_emitted():
    # scatter_add is zeros of z's shape in the cotangent's dtype: the gradients need no like()
    text = sg.source(sg.grad(xent_by_labels, wrt=(0, 1, 2, 3)), *unpack(P), X, LABELS)
    assert "like(" not in text, text
    got = sg.grad(xent_by_labels, wrt=(0, 1, 2, 3))(*unpack(P), X, LABELS)
    for g, w in zip(got, unpack(P)):
        assert type(g) is np.ndarray and g.dtype == w.dtype and g.shape == w.shape


def test_cross_entropy_by_integer_labels_and_row_max_differentiates_in_every_mode():
    check_all_modes(xent_by_labels_flat, P)


def test_cross_entropy_by_integer_labels_gradients_by_argument_match_central_differences():
    args = (*unpack(P), X, LABELS)
    got = sg.grad(xent_by_labels, wrt=(0, 1, 2, 3))(*args)
    for place in range(4):
        assert_close(got[place], numeric_gradient(xent_by_labels, args, None, place))
