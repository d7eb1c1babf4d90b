"""Issue 14's runtime spellings against PyTorch 2.x itself: values, gradients (first and
second order) and node names of ``t.sinc()``, ``sg.fmax``, ``t.median(dim)``, ... on the
same float64 data. Skipped without torch."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

X = np.array([[0.7, -1.3, 0.0, 2.2], [1.1, 0.4, -0.6, 0.0], [3.0, 0.4, 0.9, -2.5]])
POSITIVE = np.abs(X) + 0.3
WITH_NAN = np.where(np.arange(12).reshape(3, 4) % 5 == 1, np.nan, X)

# (label, data, how to call it on a tensor: same spelling in both libraries)
UNARY = [
    ("sinc", X, lambda t: t.sinc()),
    ("deg2rad", X, lambda t: t.deg2rad()),
    ("rad2deg", X, lambda t: t.rad2deg()),
    ("erf", X, lambda t: t.erf()),
    ("erfc", X, lambda t: t.erfc()),
    ("lgamma", POSITIVE, lambda t: t.lgamma()),
    ("lgamma-negative", -POSITIVE + 0.05, lambda t: t.lgamma()),
    ("digamma", POSITIVE, lambda t: t.digamma()),
    ("polygamma-2", POSITIVE, lambda t: t.polygamma(2)),
    ("nan_to_num", WITH_NAN, lambda t: t.nan_to_num(nan=0.5)),
    ("cumprod-0", X, lambda t: t.cumprod(0)),
    ("cumprod-1", X, lambda t: t.cumprod(1)),
    ("nansum", WITH_NAN, lambda t: t.nansum()),
    ("nansum-dim", WITH_NAN, lambda t: t.nansum(1, keepdim=True)),
    ("nanmean-dim", WITH_NAN, lambda t: t.nanmean(0)),
    ("median", X, lambda t: t.median()),
    ("median-dim", X, lambda t: t.median(1).values),
    ("median-dim-keepdim", X, lambda t: t.median(0, keepdim=True).values),
]
BINARY = [
    ("fmax", lambda lib, a, b: lib.fmax(a, b)),
    ("fmin", lambda lib, a, b: lib.fmin(a, b)),
    ("logaddexp2", lambda lib, a, b: lib.logaddexp2(a, b)),
]


# PyTorch's trigamma is accurate to about 5e-10 (against mpmath; srcgrad's to 1e-15, see
# tests/rules/test_special_values.py): derivatives through polygamma(1, x) compare at 1e-8
TRIGAMMA = {"digamma", "lgamma", "lgamma-negative"}


def _node_name(t):
    return type(t.grad_fn).__name__


def _both(data, call):
    ours = sg.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    return ours, call(ours), theirs, call(theirs)


@pytest.mark.parametrize("label, data, call", UNARY, ids=[u[0] for u in UNARY])
def test_method_matches_torch_in_value_gradient_and_node_name(label, data, call):
    ours, out, theirs, ref = _both(data, call)
    np.testing.assert_allclose(np.asarray(out.detach()), ref.detach().numpy(), rtol=1e-12,
                               atol=1e-14, equal_nan=True)
    assert _node_name(out) == _node_name(ref)
    weights = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
    (out * sg.tensor(weights)).sum().backward()
    (ref * torch.tensor(weights)).sum().backward()
    rtol = 1e-8 if label in TRIGAMMA else 1e-10
    np.testing.assert_allclose(np.asarray(ours.grad), theirs.grad.numpy(), rtol=rtol,
                               atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("label, call", BINARY, ids=[b[0] for b in BINARY])
def test_binary_function_matches_torch_with_nans_and_ties(label, call):
    a = np.array([1.0, 2.0, np.nan, np.nan, 3.0, -1.0])
    b = np.array([1.0, 1.0, 1.0, np.nan, np.nan, 0.5])
    if label == "logaddexp2":
        a, b = np.nan_to_num(a, nan=0.25), np.nan_to_num(b, nan=-0.75)
    xs = [sg.tensor(v, requires_grad=True) for v in (a, b)]
    ts = [torch.tensor(v, requires_grad=True) for v in (a, b)]
    out, ref = call(sg, *xs), call(torch, *ts)
    assert _node_name(out) == _node_name(ref)
    np.testing.assert_allclose(np.asarray(out.detach()), ref.detach().numpy(), equal_nan=True)
    out.sum().backward()
    ref.sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(np.asarray(x.grad), t.grad.numpy(), rtol=1e-12)


def test_median_with_dim_returns_torch_values_and_indices():
    data = np.array([[2.0, 1.0, 2.0, 3.0, 2.0], [4.0, 0.5, 0.5, 9.0, -1.0]])
    ours = sg.tensor(data).median(1)
    theirs = torch.tensor(data).median(1)
    np.testing.assert_array_equal(np.asarray(ours.values), theirs.values.numpy())
    np.testing.assert_array_equal(np.asarray(ours.indices), theirs.indices.numpy())


@pytest.mark.parametrize("label, data, call", [u for u in UNARY if u[0] in (
    "sinc", "erf", "lgamma", "digamma", "cumprod-1", "nanmean-dim")], ids=lambda v: (
    v if isinstance(v, str) else ""))
def test_second_order_matches_torch(label, data, call):
    data = np.nan_to_num(data, nan=0.3)
    data = np.where(data == 0.0, 0.25, data)  # torch's sinc'' at 0 is NaN (kink table)

    def hess(lib, tensor_of):
        x = tensor_of(data)
        return lib.autograd.functional.hessian(lambda t: (call(t) ** 2).sum(), x)

    ours = hess(sg, lambda d: sg.tensor(d))
    theirs = hess(torch, lambda d: torch.tensor(d))
    rtol = 1e-8 if label in TRIGAMMA else 1e-10
    np.testing.assert_allclose(np.asarray(ours.detach()), theirs.numpy(), rtol=rtol, atol=1e-10)


def test_numpy_functions_on_tensors_record_the_numpy_semantics():
    """np.median averages the two middles (NumPy); t.median() takes the lower (PyTorch)."""
    t = sg.tensor([4.0, 1.0, 3.0, 2.0], requires_grad=True)
    assert float(np.median(t)) == 2.5 and float(t.median()) == 2.0
    np.median(t).backward()
    np.testing.assert_array_equal(np.asarray(t.grad), [0.0, 0.0, 0.5, 0.5])
