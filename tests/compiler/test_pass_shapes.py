"""The shape-class pass: no ``unbroadcast``/``like``/materialised seed where shapes are
provably equal, and nothing dropped where they are not (values checked against
``optimize=False`` and central finite differences)."""

import re

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient


def chain(x):
    h = np.sin(x) * x + 1.0
    return np.sum(np.exp(-h * 0.5) * h)


def mean_square(w, x):
    return np.mean((np.tanh(x @ w) - 1.0) ** 2)


def outer(x, y):
    return np.sum(x[:, None] * y)


def scaled_sum(x, k):
    return np.sum(x * k)


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def test_same_shape_chain_has_no_unbroadcast_seed_or_like():
    x = np.linspace(-1.0, 1.0, 5)
    text = _code(sg.source(sg.grad(chain), x))
    for gone in ("unbroadcast", "unreduce", "seed_one", "like(", "np.sum"):
        assert gone not in text, (gone, text)
    np.testing.assert_allclose(sg.grad(chain)(x), sg.grad(chain, optimize=False)(x))
    assert_close(sg.grad(chain)(x), numeric_gradient(chain, (x,), {}, 0))


def test_mean_adjoint_is_a_scalar_multiplied_in():
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    text = _code(sg.source(sg.grad(mean_square), w, x))
    assert "unreduce" not in text and "np.mean" not in text and "like(" not in text
    assert "reduced_count" in text  # 1 / n stays a scalar
    assert "matmul_adjoint" not in text and "= x.T @ " in text  # x.T @ g, as by hand
    np.testing.assert_allclose(sg.grad(mean_square)(w, x),
                               sg.grad(mean_square, optimize=False)(w, x))
    assert_close(sg.grad(mean_square)(w, x), numeric_gradient(mean_square, (w, x), {}, 0))


def test_broadcasting_operands_keep_their_unbroadcast():
    x, y = np.arange(3.0), np.arange(4.0)
    text = sg.source(sg.grad(outer, wrt=(0, 1)), x, y)
    assert "unbroadcast" in text
    for k, (got, want) in enumerate(zip(sg.grad(outer, wrt=(0, 1))(x, y),
                                        sg.grad(outer, wrt=(0, 1), optimize=False)(x, y))):
        np.testing.assert_allclose(got, want)
        assert_close(got, numeric_gradient(outer, (x, y), {}, k))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_are_kept(dtype):
    x = np.linspace(-1.0, 1.0, 4).astype(dtype)
    got = sg.grad(chain)(x)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_allclose(got, sg.grad(chain, optimize=False)(x), rtol=1e-5)
    assert_close(got, numeric_gradient(chain, (x,), {}, 0), rtol=1e-5)  # float64 reference


def test_a_scalar_factor_keeps_the_broadcast_seed():
    x = np.ones(3)
    got = sg.grad(scaled_sum)(x, 2)
    assert got.shape == (3,) and got.flags.writeable
    np.testing.assert_allclose(got, [2.0, 2.0, 2.0])


def test_a_dead_temporary_is_freed_where_it_dies():
    """``x @ w`` is read after ``tanh`` only for its shape: the shape is taken early and
    the product's name is rebound by ``tanh`` (so the array is freed there)."""
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    text = _code(sg.source(sg.grad(mean_square), w, x))
    product = re.search(r"(_t\d+) = x @ w", text).group(1)
    assert f"{product} = np.tanh({product})" in text, text
    assert text.index(f"{product}.shape") < text.index("np.tanh")


def test_an_array_name_is_rebound_before_a_scalar_name():
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    text = _code(sg.source(sg.grad(mean_square), w, x))
    # (1/n) * 2 times the array, written as one expression (backend/nesting.py)
    scaled = re.search(r"(_t\d+) = (_t\d+) \* 2\.0 \* (_t\d+)",
                       text.split("= reduced_count")[1])
    assert scaled.group(1) == scaled.group(3), text  # the array's name, not 1/n's


def two_sums_of_one_array(x):
    return -1.37 * np.sum(-x) + 1.41 * np.mean(x, axis=0)


def test_two_lazy_adjoints_are_not_made_scalar_on_each_others_account():
    """Each broadcast adjoint alone meets the other's full shape; made lazy together they
    would sum to a float for an array argument."""
    x = np.array([0.2, 0.4, 0.1])
    got = sg.grad(two_sums_of_one_array)(x)
    assert type(got) is np.ndarray and got.shape == (3,)
    np.testing.assert_allclose(got, sg.grad(two_sums_of_one_array, optimize=False)(x))
    assert_close(got, numeric_gradient(two_sums_of_one_array, (x,), {}, 0))
    assert "unreduce(" in _code(sg.source(sg.grad(two_sums_of_one_array), x))
