"""A transpose or reshape of a value known to be an ndarray is emitted as the array's own
method (``x.reshape(s)``, ``x.transpose((0, 2, 1))``), as by hand: ``np.reshape`` and
``np.transpose`` cost a Python wrapper each, and multi-head attention reshapes and
transposes per head, forward and back. The generic version, where a list may arrive,
keeps the dispatching functions. Both differentiate against central differences."""

from __future__ import annotations

import numpy as np
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(63)


def heads(x):
    B, T, E = x.shape
    q = x.reshape(B, T, 2, E // 2).transpose(0, 2, 1, 3)
    o = np.tanh(q @ q.transpose(0, 1, 3, 2)) @ q
    return np.sum(o.transpose(0, 2, 1, 3).reshape(B, T, E) ** 2)


def test_views_of_typed_arrays_are_emitted_as_methods_and_differentiate():
    x = rng.uniform(-1.0, 1.0, (2, 3, 4))
    check_all_modes(heads, x)
    text = sg.source(sg.grad(heads), x)
    assert "x.reshape((B, T, 2, E // 2)).transpose((0, 2, 1, 3))" in text, text
    assert "np.transpose(q," not in text, text


def test_generic_version_keeps_the_dispatching_functions():
    sg.clear_cache()

    def flat(x):
        return np.sum(np.reshape(x, (-1,)) ** 2)

    text = sg.source(sg.grad(flat))  # no example: the version for any argument
    assert "np.reshape(x," in text, text
    # a list arrives there: its gradient is 2 x, element by element
    np.testing.assert_allclose(np.asarray(sg.grad(flat)([1.0, 2.0]), dtype=float), [2.0, 4.0])


def test_a_cotangents_chain_of_views_is_emitted_as_methods():
    # the cotangent of a merged-heads output is reshaped back, then transposed: a reshape
    # of an ndarray is an ndarray, so the transpose after it is the method too
    sg.clear_cache()
    x = rng.uniform(-1.0, 1.0, (2, 3, 4))
    text = sg.source(sg.grad(heads), x)
    assert "np.transpose((" not in text and ").transpose((0, 2, 1, 3))" in text, text
    check_all_modes(heads, x, second_order=False)
