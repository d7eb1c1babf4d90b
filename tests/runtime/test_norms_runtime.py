"""``np.linalg.norm`` and ``Tensor.norm`` on runtime Tensors: the vector-or-matrix choice
made per call from the Tensor's ndim (``Rule.resolve``), every order against central
differences, and PyTorch's meaning of ``Tensor.norm(p, dim=pair)``."""

from __future__ import annotations

import numpy as np
import pytest
from fd import numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(11)
VECTOR = rng.uniform(-2.0, 2.0, 5)
MATRIX = rng.uniform(-2.0, 2.0, (4, 3))


def _central(f, x):
    return numeric_gradient(f, (x,), {}, 0)


@pytest.mark.parametrize("x, ord", [
    (VECTOR, 3), (VECTOR, 0.5), (VECTOR, np.inf), (VECTOR, -1), (VECTOR, 1),
    (MATRIX, "nuc"), (MATRIX, 2), (MATRIX, -2), (MATRIX, 1), (MATRIX, -np.inf),
    (MATRIX, "fro"),
], ids=lambda v: f"{v.ndim}d" if isinstance(v, np.ndarray) else repr(v))
def test_np_linalg_norm_on_a_tensor_without_axis_differentiates_as_numpy_means_it(x, ord):
    t = sg.tensor(x, requires_grad=True)
    out = np.linalg.norm(t, ord)
    np.testing.assert_allclose(np.asarray(out), np.linalg.norm(x, ord), rtol=1e-12)
    out.backward()
    np.testing.assert_allclose(np.asarray(t.grad), _central(lambda v: np.linalg.norm(v, ord), x),
                               rtol=1e-6, atol=1e-7)


def test_np_linalg_norm_order_numpy_does_not_define_raises_on_a_tensor():
    with pytest.raises(ValueError, match="not a matrix norm order"):
        np.linalg.norm(sg.tensor(MATRIX, requires_grad=True), 3)


def test_tensor_norm_p2_over_two_dims_is_the_euclidean_norm_as_in_pytorch():
    t = sg.tensor(MATRIX, requires_grad=True)
    out = t.norm(p=2, dim=(0, 1))
    np.testing.assert_allclose(np.asarray(out), np.sqrt(np.sum(MATRIX ** 2)), rtol=1e-12)
    out.backward()
    np.testing.assert_allclose(np.asarray(t.grad), MATRIX / np.sqrt(np.sum(MATRIX ** 2)),
                               rtol=1e-12)


def test_tensor_norm_other_p_over_two_dims_is_refused_not_a_matrix_norm():
    with pytest.raises(RuntimeError, match="over several dims"):
        sg.tensor(MATRIX, requires_grad=True).norm(p=3, dim=(0, 1))
