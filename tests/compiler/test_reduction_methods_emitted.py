"""A sum, mean, prod, max or min of a value known to be an ndarray is emitted as the array's own
method (``p.sum(-1, keepdims=True)``), as by hand: ``np.sum`` costs a dispatching wrapper
per call, and a softmax takes two reductions forward and two back. The generic version,
where a list may arrive, keeps the functions. Both differentiate against central
differences in every mode."""

from __future__ import annotations

import numpy as np
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(64)


def softmax_norms(x):
    e = np.exp(x - 0.5)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(p * x) + np.mean(x * x, 0).prod()


def test_reductions_of_typed_arrays_are_emitted_as_methods_and_differentiate():
    x = rng.uniform(-1.0, 1.0, (3, 4))
    check_all_modes(softmax_norms, x)
    text = sg.source(sg.grad(softmax_norms), x)
    assert "e.sum(-1, keepdims=True)" in text, text
    assert ".mean(0)" in text and ".prod()" in text, text
    assert "= np.sum(e," not in text, text


def peaks(x):
    return np.sum(np.max(x, axis=0) * np.min(x * x, 1, keepdims=True)) + np.amax(x)


def test_max_and_min_of_typed_arrays_are_emitted_as_methods_and_differentiate():
    x = rng.uniform(-1.0, 1.0, (3, 4))  # distinct values: no ties
    check_all_modes(peaks, x, second_order=False)
    text = sg.source(sg.grad(peaks), x)
    assert "x.max(0)" in text and ".min(1, keepdims=True)" in text, text
    assert "= np.max(" not in text, text


def test_generic_version_keeps_the_reduction_functions():
    sg.clear_cache()

    def total(x):
        return np.sum(x) * np.mean(x)

    text = sg.source(sg.grad(total))  # no example: the version for any argument
    assert "np.sum(x)" in text, text
    xs = [1.0, 2.0, 4.0]  # a list arrives: d/dx_i (S * S / n) = 2 S / n
    np.testing.assert_allclose(np.asarray(sg.grad(total)(xs), dtype=float),
                               [2 * 7.0 / 3] * 3)
