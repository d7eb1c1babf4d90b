"""Shape facts of reductions along constant axes (issue 16's small MLP): a value shifted by
its own ``keepdims`` reduction keeps its shape class (``z - np.max(z, 1, keepdims=True)``
has ``z``'s shape, so its adjoint needs no ``unbroadcast``), and an axis reduction's
adjoint meeting a full-shaped partner is ``g[:, None]`` (a view broadcasting does the
rest) instead of a materialised ``unreduce``. Values checked against central differences in
every mode and against ``optimize=False``; where the facts do not hold, the helpers stay."""

from __future__ import annotations

import numpy as np
from allmodes import check_all_modes

import srcgrad as sg

rng = np.random.default_rng(161)
Z = rng.standard_normal((6, 3))
Y = np.eye(3)[[0, 2, 1, 1, 0, 2]]


def shifted_log_sum_exp(z):
    z = z - np.max(z, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(z), axis=1)))


def softmax_rows_weighted(z):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return np.sum(e / np.sum(e, axis=-1, keepdims=True) * Y)


def column_mean_centred(z):
    c = z - np.mean(z, axis=0, keepdims=True)
    return np.sum(np.tanh(c) ** 2)


def row_sums_times_small(z, w):
    # ``w`` (6, 1) is smaller than the product: the row sums' adjoint must be summed back
    return np.sum(np.sum(z, axis=1, keepdims=True) * w)


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def test_value_shifted_by_its_kept_max_keeps_its_shape_class():
    text = _code(sg.source(sg.grad(shifted_log_sum_exp), Z))
    # the shift's adjoint for ``z`` passes as is; only the max's own is summed back
    assert text.count("unbroadcast(") == 1, text
    assert "[:, None]" in text and "unreduce(" not in text, text
    np.testing.assert_allclose(sg.grad(shifted_log_sum_exp)(Z),
                               sg.grad(shifted_log_sum_exp, optimize=False)(Z), rtol=1e-12)


def test_axis_reduction_adjoint_meeting_full_partner_is_an_indexed_view():
    text = _code(sg.source(sg.grad(shifted_log_sum_exp), Z))
    assert "[:, None]" in text, text


def test_kept_shift_and_lazy_axis_adjoints_match_central_differences():
    for fn in (shifted_log_sum_exp, softmax_rows_weighted, column_mean_centred):
        check_all_modes(fn, Z)


def test_kept_reduction_against_smaller_partner_keeps_unbroadcast():
    w = rng.standard_normal((6, 1))
    f = sg.grad(row_sums_times_small, wrt=(0, 1))
    text = _code(sg.source(f, Z, w))
    assert "unbroadcast(" in text or "np.sum(" in text, text
    got = f(Z, w)
    want = sg.grad(row_sums_times_small, wrt=(0, 1), optimize=False)(Z, w)
    for g, h in zip(got, want):
        np.testing.assert_allclose(g, h, rtol=1e-12)
    np.testing.assert_allclose(got[0], np.broadcast_to(w, Z.shape))
    np.testing.assert_allclose(got[1], np.sum(Z, axis=1, keepdims=True))


def test_shift_of_unknown_rank_value_keeps_unbroadcast():
    # a list argument has no known rank: nothing is assumed about its max's shape
    def f(z):
        z = np.asarray(z)
        return np.sum(np.exp(z - np.max(z, axis=0, keepdims=True)))

    x = [1.0, 2.0, 0.5]
    got = sg.grad(f)(x)
    want = sg.grad(f, optimize=False)(x)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def dense_softmax_loss(w, b, x):
    z = x @ w + b
    z = z - np.max(z, axis=1, keepdims=True)
    return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * Y, axis=1))


def test_gradients_summed_from_new_float64_arrays_need_no_like_cast():
    # db is ``unbroadcast`` of a new float64 array and the max's adjoint keeps the
    # cotangent's dtype: nothing to cast, nothing to copy
    w, b, x = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal((6, 2))
    f = sg.grad(dense_softmax_loss, wrt=(0, 1))
    text = _code(sg.source(f, w, b, x))
    assert "like(" not in text, text
    got = f(w, b, x)
    assert all(type(g) is np.ndarray and g.dtype == np.float64 for g in got)
    assert got[0].shape == w.shape and got[1].shape == b.shape
    for g, h in zip(got, sg.grad(dense_softmax_loss, wrt=(0, 1), optimize=False)(w, b, x)):
        np.testing.assert_allclose(g, h, rtol=1e-12)
    check_all_modes(lambda b: dense_softmax_loss(w, b, x), b)


def test_float32_arguments_still_get_float32_gradients():
    w, b, x = (a.astype(np.float32) for a in (rng.standard_normal((2, 3)),
                                             rng.standard_normal(3), rng.standard_normal((6, 2))))
    got = sg.grad(dense_softmax_loss, wrt=(0, 1))(w, b, x)
    assert [g.dtype for g in got] == [np.float32, np.float32]
