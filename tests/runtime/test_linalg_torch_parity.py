"""``sg.linalg`` and the compiler's linear algebra against PyTorch 2.13's ``torch.linalg``
(skipped without torch): the same values, the same gradients (PyTorch's symmetrised
gradient for ``sg.linalg.cholesky`` and ``eigh``, which treat the input as symmetric) and the
same node names; and the compiler's gradient of the NumPy spelling equals the runtime's. The
NumPy spellings differentiate what NumPy computes, which reads one triangle: their gradient
is torch's of the matrix read, ``tril(A) + tril(A, -1).mT``."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import directional_derivative

torch = pytest.importorskip("torch")

rng = np.random.default_rng(141)
_B = rng.uniform(-1.0, 1.0, (4, 4))
SPD = _B @ _B.T + np.diag([1.0, 2.0, 3.0, 4.0])
GENERAL = rng.uniform(-1.0, 1.0, (4, 4)) + 2.0 * np.eye(4)
TALL = rng.uniform(-1.0, 1.0, (5, 3))
BATCH_SPD = np.stack([SPD, SPD[::-1, ::-1] + np.eye(4)])
W = rng.standard_normal((5, 5))  # a cotangent-like weight, cut to each output's shape


def _weight(shape):
    if not shape:
        return W[0, 0]
    return W[tuple(slice(0, n) for n in shape[-2:])] if len(shape) >= 2 else W[0, :shape[0]]


def _loss(mod, out):
    """A scalar of every output of a call, sign-invariant where vectors are involved."""
    if not isinstance(out, (tuple, list)):
        out = (out,)
    total = 0.0
    for o in out:
        total = total + (o * o * mod.tensor(_weight(tuple(o.shape)), dtype=o.dtype)).sum()
    return total


# name: (input, sg call, torch call, torch node name)
CALLS = {
    "cholesky": (SPD, lambda m, a: m.linalg.cholesky(a), "LinalgCholeskyExBackward0"),
    "cholesky_upper": (SPD, lambda m, a: m.linalg.cholesky(a, upper=True),
                       "LinalgCholeskyExBackward0"),
    "cholesky_batched": (BATCH_SPD, lambda m, a: m.linalg.cholesky(a),
                         "LinalgCholeskyExBackward0"),
    "eigvalsh": (SPD, lambda m, a: m.linalg.eigvalsh(a), "LinalgEighBackward0"),
    "eigh": (SPD, lambda m, a: m.linalg.eigh(a), "LinalgEighBackward0"),
    "eigh_upper": (SPD, lambda m, a: m.linalg.eigh(a, UPLO="U"), "LinalgEighBackward0"),
    "svdvals": (TALL, lambda m, a: m.linalg.svdvals(a), "LinalgSvdBackward0"),
    "svd_thin": (TALL, lambda m, a: m.linalg.svd(a, full_matrices=False),
                 "LinalgSvdBackward0"),
    "svd_square": (GENERAL, lambda m, a: m.linalg.svd(a), "LinalgSvdBackward0"),
    "qr": (TALL, lambda m, a: m.linalg.qr(a), "LinalgQrBackward0"),
    "slogdet": (GENERAL, lambda m, a: m.linalg.slogdet(a)[1], "LinalgSlogdetBackward0"),
    "pinv": (TALL, lambda m, a: m.linalg.pinv(a), "LinalgPinvBackward0"),
    "matrix_power_3": (GENERAL / 2, lambda m, a: m.linalg.matrix_power(a, 3), "MmBackward0"),
    "matrix_power_-2": (GENERAL / 2, lambda m, a: m.linalg.matrix_power(a, -2), "MmBackward0"),
    "multi_dot": (TALL, lambda m, a: m.linalg.multi_dot([a.T, a, a.T]), None),
    "inv": (GENERAL, lambda m, a: m.linalg.inv(a), "LinalgInvExBackward0"),
    "det": (GENERAL, lambda m, a: m.linalg.det(a), "LinalgDetBackward0"),
    "norm_2": (TALL, lambda m, a: m.linalg.matrix_norm(a, 2), None),
    "norm_nuc": (TALL, lambda m, a: m.linalg.matrix_norm(a, "nuc"), None),
    "norm_fro": (TALL, lambda m, a: m.linalg.matrix_norm(a), "LinalgVectorNormBackward0"),
    "norm_1": (TALL, lambda m, a: m.linalg.matrix_norm(a, 1), None),
    "norm_-inf": (TALL, lambda m, a: m.linalg.matrix_norm(a, -np.inf), None),
    "vector_norm_3": (TALL, lambda m, a: m.linalg.vector_norm(a, 3), "LinalgVectorNormBackward0"),
    "vector_norm_inf_dim": (TALL, lambda m, a: m.linalg.vector_norm(a, np.inf, dim=1),
                            "LinalgVectorNormBackward0"),
    "norm_vector_1": (TALL[0], lambda m, a: m.linalg.norm(a, 1), "LinalgVectorNormBackward0"),
}


def _run(mod, x, call):
    a = mod.tensor(x, requires_grad=True)
    out = call(mod, a)
    (g,) = (sg.autograd if mod is sg else torch.autograd).grad(_loss(mod, out), [a])
    first = out[0] if isinstance(out, (tuple, list)) else out
    return out, np.asarray(g.detach().numpy()), first


@pytest.mark.parametrize("name", sorted(CALLS))
def test_linalg_value_gradient_and_node_name_match_torch(name):
    x, call, node = CALLS[name]
    ours, g_ours, first = _run(sg, x, call)
    theirs, g_theirs, first_t = _run(torch, x, call)
    np.testing.assert_allclose(np.asarray(first.detach().numpy()),
                               first_t.detach().numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-8, atol=1e-10)
    if node is not None:
        assert type(first.grad_fn).__name__ == node == type(first_t.grad_fn).__name__


@pytest.mark.parametrize("name", ["cholesky", "eigh", "svd_thin", "qr", "pinv",
                                  "matrix_power_-2"])
def test_linalg_second_order_matches_torch(name):
    x, call, _ = CALLS[name]
    u = rng.standard_normal(x.shape)
    u = u + u.T if name in ("cholesky", "eigh") else u

    def hvp(mod):
        a = mod.tensor(x, requires_grad=True)
        auto = sg.autograd if mod is sg else torch.autograd
        (g,) = auto.grad(_loss(mod, call(mod, a)), [a], create_graph=True)
        (h,) = auto.grad((g * mod.tensor(u)).sum(), [a])
        return np.asarray(h.detach().numpy())

    np.testing.assert_allclose(hvp(sg), hvp(torch), rtol=1e-7, atol=1e-9)


# --- the compiler's NumPy spellings: the same gradient as the runtime (and torch) ----------------
def gp_nll(K, y):
    L = np.linalg.cholesky(K)
    return 0.5 * y @ np.linalg.solve(K, y) + np.sum(np.log(np.diag(L)))


def eigh_loss(A):
    w, V = np.linalg.eigh(A)
    return np.sum(w * w * _weight((4,))) + np.sum(V * V * _weight((4, 4)))


def svd_loss(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(U * U * _weight((5, 3))) + np.sum(s * s * _weight((3,))) + np.sum(
        Vt * Vt * _weight((3, 3)))


def qr_loss(A):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * Q * _weight((5, 3))) + np.sum(R * R * _weight((3, 3)))


def test_gp_negative_log_likelihood_gradient_matches_torch_and_the_runtime():
    y = rng.standard_normal(4)
    g = sg.grad(gp_nll)(SPD, y)
    k = torch.tensor(SPD, requires_grad=True)
    L = torch.linalg.cholesky(torch.tril(k) + torch.tril(k, -1).mT)  # what NumPy reads
    yt = torch.tensor(y)
    nll = 0.5 * yt @ torch.linalg.solve(k, yt) + torch.log(torch.diagonal(L)).sum()
    (want,) = torch.autograd.grad(nll, [k])
    np.testing.assert_allclose(g, want.numpy(), rtol=1e-9, atol=1e-12)
    # along any direction it is the derivative of NumPy's function
    u = rng.standard_normal((4, 4))
    fd = float(directional_derivative(lambda m: gp_nll(m, y), (SPD,), {0: u}))
    assert np.sum(g * u) == pytest.approx(fd, rel=1e-6)


def _numpy_eigh(m, a):
    """NumPy's spelling on a Tensor; torch's eigh of the lower triangle NumPy reads."""
    if m is sg:
        return np.linalg.eigh(a)
    return torch.linalg.eigh(torch.tril(a) + torch.tril(a, -1).mT)


@pytest.mark.parametrize("f, x, call", [
    (eigh_loss, SPD, _numpy_eigh),
    (svd_loss, TALL, lambda m, a: m.linalg.svd(a, full_matrices=False)),
    (qr_loss, TALL, lambda m, a: m.linalg.qr(a)),
], ids=["eigh", "svd", "qr"])
def test_compiler_gradient_of_tuple_call_equals_runtime_and_torch(f, x, call):
    sg.clear_cache()
    compiled = sg.grad(f)(x)
    _, runtime, _ = _run(sg, x, call)
    _, theirs, _ = _run(torch, x, call)
    np.testing.assert_allclose(compiled, runtime, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(compiled, theirs, rtol=1e-8, atol=1e-10)


_SKEWED = SPD + np.triu(rng.uniform(-1.0, 1.0, (4, 4)), 1)  # the upper triangle is not read


@pytest.mark.parametrize("name", ["cholesky", "eigvalsh", "eigh"])
def test_sg_linalg_keeps_torch_symmetrised_gradient_on_a_non_symmetric_input(name):
    x, call, _ = CALLS[name]
    ours, g_ours, first = _run(sg, _SKEWED, call)
    theirs, g_theirs, first_t = _run(torch, _SKEWED, call)
    np.testing.assert_allclose(np.asarray(first.detach().numpy()),
                               first_t.detach().numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(g_ours, g_ours.T, rtol=1e-12, atol=1e-12)
