"""Spellings of a small MLP's gradient (issue 16): a transpose of a value typed ndarray is
written ``a.T`` (the generic version keeps ``np.transpose``), and a negation leaves
``unbroadcast``/``unreduce``/``picked`` so the reader subtracts (the max shift's adjoint is
``dz - picked(unbroadcast(dz, s), ...)``). Checked against central differences in reverse
and forward mode and at second order, on a variant unlike the benchmark's program (relu,
``.T``, 2-d biases, other widths)."""

from __future__ import annotations

import numpy as np
from allmodes import check_all_modes, split_parameters
from fd import assert_close, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(1616)
X = rng.standard_normal((7, 3))
Y = np.eye(4)[rng.integers(0, 4, 7)] * 0.8  # rows summing to 0.8: the shift's adjoint is not 0
SIZES = ((3, 5), (1, 5), (4, 5), (1, 4))


def unpack(p):
    return split_parameters(p, SIZES)


def relu_xent(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    z = h @ W2.T + b2
    z = z - np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - np.sum(z * y, axis=1))


def tanh_xent_flat(p):
    W1, b1, W2, b2 = unpack(p)
    h = np.tanh(X @ W1 + b1)
    z = h @ W2.T + b2
    z = z - np.max(z, axis=1, keepdims=True)
    return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * Y, axis=1))


P = rng.standard_normal(sum(int(np.prod(s)) for s in SIZES)) * 0.7


def test_mlp_with_transposed_weights_and_unnormalised_targets_differentiates():
    check_all_modes(tanh_xent_flat, P)


def test_relu_mlp_gradient_matches_central_differences_with_transposes_and_2d_biases():
    args = (*unpack(P), X, Y)
    got = sg.grad(relu_xent, wrt=(0, 1, 2, 3))(*args)
    for place in range(4):
        assert_close(got[place], numeric_gradient(relu_xent, args, None, place))


def test_typed_gradient_writes_transposes_as_T_and_generic_keeps_np_transpose():
    df = sg.grad(relu_xent, wrt=(0, 1, 2, 3))
    typed = sg.source(df, *unpack(P), X, Y)
    assert "W2.T" in typed and "x.T @" in typed
    assert "np.transpose(W2)" not in typed and "np.transpose(x)" not in typed
    generic = sg.source(df)
    assert "np.transpose(" in generic and ".T\n" not in generic and ".T @" not in generic


def test_max_shift_adjoint_subtracts_instead_of_negating_the_cotangent():
    text = sg.source(sg.grad(relu_xent, wrt=(0, 1, 2, 3)), *unpack(P), X, Y)
    assert " - picked(unbroadcast(" in text
    assert "unbroadcast(-" not in text and "picked(-" not in text


def test_typed_gradient_reads_shapes_as_attributes_and_generic_keeps_np_shape():
    df = sg.grad(relu_xent, wrt=(0, 1, 2, 3))
    typed = sg.source(df, *unpack(P), X, Y)
    assert "np.shape(" not in typed and "b1.shape" in typed and "y.shape" in typed
    assert "np.shape(" in sg.source(df)


def scaled_by_0d(x, s):
    return np.sum(np.sin(x * s) * s)


def test_a_0d_array_or_numpy_scalar_keeps_np_shape_and_differentiates():
    x = rng.standard_normal(4)
    for s in (np.array(1.3), np.float64(1.3)):
        df = sg.grad(scaled_by_0d, wrt=(0, 1))
        assert "s.shape" not in sg.source(df, x, s)
        got = df(x, s)
        for place in (0, 1):
            assert_close(got[place], numeric_gradient(scaled_by_0d, (x, s), None, place))
