"""The ``shapes_without_values`` pass: a value the gradient reads only for its shape (a
loss's own last operations) is not computed; its shape comes from its operands' shapes
(``broadcast_shape``, ``reduced_shape``). Values checked against ``optimize=False`` and
central differences in every mode; a value something else reads is still computed."""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes

import srcgrad as sg
from srcgrad.rules.shape_math import broadcast_shape, reduced_shape

rng = np.random.default_rng(162)
Z = rng.standard_normal((6, 3))
Y = np.eye(3)[[0, 2, 1, 1, 0, 2]]


def cross_entropy(z, y):
    z = z - np.max(z, axis=1, keepdims=True)
    return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * y, axis=1))


def squares_mean(z, y):
    return np.mean((np.tanh(z) - y) ** 2)


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def test_loss_value_read_only_for_its_shape_is_not_computed():
    text = _code(sg.source(sg.grad(cross_entropy), Z, Y))
    # before: _t = z_1 * y; np.shape(_t); _t = np.sum(_t, 1); ...; lse = np.log(_t11); ...
    # after:  broadcast_shape(np.shape(z), np.shape(y)); reduced_shape(..., 1); no log
    assert "np.log(" not in text and "* y" in text, text
    assert "broadcast_shape(" in text and "reduced_shape(" in text, text
    np.testing.assert_allclose(sg.grad(cross_entropy)(Z, Y),
                               sg.grad(cross_entropy, optimize=False)(Z, Y), rtol=1e-12)


@pytest.mark.parametrize("y", [Y, Y[:1], Y[:, :1], np.float64(0.5)],
                         ids=["same", "row", "column", "scalar"])
def test_shapes_without_values_match_central_differences_when_targets_broadcast(y):
    for fn in (cross_entropy, squares_mean):
        check_all_modes(lambda z: fn(z, y), Z)


def test_value_read_as_a_value_is_still_computed():
    value, grad = sg.value_and_grad(cross_entropy)(Z, Y)
    want = np.mean(np.log(np.sum(np.exp(Z - Z.max(1, keepdims=True)), 1))
                   - np.sum((Z - Z.max(1, keepdims=True)) * Y, 1))
    np.testing.assert_allclose(value, want, rtol=1e-12)
    text = _code(sg.source(sg.value_and_grad(cross_entropy), Z, Y))
    assert "np.log(" in text, text


def test_broadcast_shape_and_reduced_shape_agree_with_numpy():
    for a, b in [((6, 3), (6, 3)), ((6, 1), (1, 3)), ((3,), (2, 1, 3)), ((), (4,))]:
        assert broadcast_shape(a, b) == np.broadcast_shapes(a, b)
    x = np.ones((2, 3, 4))
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            assert reduced_shape(x.shape, axis, keepdims) == \
                np.sum(x, axis=axis, keepdims=keepdims).shape
