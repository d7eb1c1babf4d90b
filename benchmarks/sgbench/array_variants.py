"""Other versions of the array workloads W2 and W3, each beside its best hand-written gradient.

W2 (:func:`sgbench.workloads.small_chain`) is one elementwise chain of size 16 and W3
(:func:`sgbench.workloads.mlp_loss`) one tanh MLP of 256x512x512 in float64. Issue 16's
hidden harness writes its own: chains of size 4..256 with 20-60 ops in float32 or float64
mixing ``np.tanh``, ``np.exp``, ``np.log``, ``np.sqrt``, ``np.where``, ``np.maximum``,
``** 2``, division, a reduction in the middle and two array inputs; MLPs of batch 64/512,
widths 128/256/1024, one or two hidden layers, tanh, relu or sigmoid, float32, biases,
the mean-square or a sum loss. These versions keep srcgrad honest on the mechanism
(elementwise adjoints, re-nesting, casts, ``unbroadcast``, a mean's scale, in-place
accumulation) rather than on one program.

Each entry of :func:`variants` is ``(name, group, function, hand-written gradient,
arguments, wrt)``; the hand-written gradient returns the gradients of the ``wrt``
arguments in order, written as a person would with NumPy: one reverse sweep, no stored
trajectory, the forward values reused, buffers updated in place where that is natural.
``group`` is ``"W2"`` (goal <= 1.10x) or ``"W3"`` (goal <= 1.05x). Run by
``benchmarks/array_variants.py``. No imports beyond numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# --- W2-like: small-array chains --------------------------------------------------------


def chain_where(x):
    """tanh, exp, log, sqrt, a division, np.where, np.maximum and ** 2 (about 25 ops)."""
    a = np.tanh(x) * 2.0 + x
    b = np.exp(-a * a) + 1.0
    c = np.log(b + x * x)
    d = np.sqrt(c * c + 1.0) / b
    e = np.where(x > 0, d * x, d - x)
    f = np.maximum(e, 0.1) ** 2
    return np.sum(f * a)


def chain_where_grad(x):
    t = np.tanh(x)
    a = t * 2.0 + x
    ea = np.exp(-a * a)
    b = ea + 1.0
    u = b + x * x
    c = np.log(u)
    q = np.sqrt(c * c + 1.0)
    d = q / b
    pos = x > 0
    e = np.where(pos, d * x, d - x)
    m = np.maximum(e, 0.1)
    f = m * m

    ge = 2.0 * m * a * (e > 0.1)
    gd = np.where(pos, ge * x, ge)
    gx = np.where(pos, ge * d, -ge)
    gu = gd / b * c / q / u
    gb = gu - gd * d / b
    gx += gu * 2.0 * x
    ga = f - gb * 2.0 * a * ea
    gx += ga * (3.0 - 2.0 * t * t)
    return gx


def norm_two(x, w):
    """Two array inputs, a mean and a variance in the middle, a sigmoid, ``** 2``."""
    h = np.tanh(x * w + 0.5)
    mu = np.mean(h)
    c = h - mu
    s = np.sqrt(np.mean(c * c) + 1e-3)
    z = c / s
    g = 1.0 / (1.0 + np.exp(-z))
    return np.sum(g * w) + np.sum((x - w) ** 2)


def norm_two_grad(x, w):
    n = x.size
    h = np.tanh(x * w + 0.5)
    c = h - np.mean(h)
    s = np.sqrt(np.mean(c * c) + 1e-3)
    z = c / s
    g = 1.0 / (1.0 + np.exp(-z))

    r2 = 2.0 * (x - w)
    gz = w * g * (1.0 - g)
    gc = gz / s
    gc -= c * (np.sum(gz * z) / (s * s * n))
    gc -= np.mean(gc)
    gp = gc * (1.0 - h * h)
    return gp * w + r2, gp * x + g - r2


def small_chain(x):
    """W2's program as written (35 ops), run here at other sizes and in float32."""
    h1 = np.sin(x) * x + 1.0
    h2 = np.exp(-h1 * 0.5) * h1
    h3 = np.tanh(h2 - x) + h2 * h2
    h4 = np.sqrt(h3 * h3 + 1.0) / h1
    h5 = np.cos(h4) * h3 - h4 / 3.0
    h6 = np.log1p(h5 * h5) + x * h4
    h7 = np.sin(h6 + h2) * np.exp(-x * x)
    h8 = h7 * h6 - np.tanh(h5) * 0.5
    return np.sum(h8 * h8)


def small_chain_grad(x):
    s = np.sin(x)
    h1 = s * x + 1.0
    e1 = np.exp(-h1 * 0.5)
    h2 = e1 * h1
    t1 = np.tanh(h2 - x)
    h3 = t1 + h2 * h2
    q = np.sqrt(h3 * h3 + 1.0)
    h4 = q / h1
    c4 = np.cos(h4)
    h5 = c4 * h3 - h4 / 3.0
    h6 = np.log1p(h5 * h5) + x * h4
    u = h6 + h2
    su = np.sin(u)
    ex = np.exp(-x * x)
    h7 = su * ex
    t5 = np.tanh(h5)
    h8 = h7 * h6 - t5 * 0.5

    g8 = 2.0 * h8
    g7 = g8 * h6
    gu = g7 * ex * np.cos(u)
    g6 = g8 * h7 + gu
    g5 = g6 * 2.0 * h5 / (1.0 + h5 * h5) - 0.5 * g8 * (1.0 - t5 * t5)
    gx = g7 * su * ex * (-2.0 * x) + g6 * h4
    g4 = g6 * x - g5 * np.sin(h4) * h3 - g5 / 3.0
    g4h = g4 / h1
    g3 = g5 * c4 + g4h * h3 / q
    gt = g3 * (1.0 - t1 * t1)
    g2 = gu + g3 * 2.0 * h2 + gt
    gx -= gt
    g1 = g2 * e1 * (1.0 - 0.5 * h1) - g4h * h4
    return gx + g1 * (np.cos(x) * x + s)


def softplus_gate(x, y):
    """Two inputs, log(1 + exp), a clamp by np.maximum, sqrt, division (about 30 ops)."""
    sp = np.log(1.0 + np.exp(x))
    r = np.sqrt(y * y + 0.25)
    k = np.maximum(sp - r, 0.0) + 0.1
    m = (x * y) / k
    t = np.tanh(m) ** 2
    v = np.where(y > 0.0, t * r, t / r)
    w = np.exp(-0.5 * v) * sp
    return np.sum(w * w) + np.sum(m) * 0.25


def softplus_gate_grad(x, y):
    ex = np.exp(x)
    sp = np.log(1.0 + ex)
    r = np.sqrt(y * y + 0.25)
    kk = sp - r
    k = np.maximum(kk, 0.0) + 0.1
    xy = x * y
    m = xy / k
    th = np.tanh(m)
    t = th * th
    pos = y > 0.0
    v = np.where(pos, t * r, t / r)
    e = np.exp(-0.5 * v)
    w = e * sp

    gw = 2.0 * w
    gv = gw * w * -0.5
    gsp = gw * e
    gt = np.where(pos, gv * r, gv / r)
    gr = np.where(pos, gv * t, -gv * t / (r * r))
    gm = gt * 2.0 * th * (1.0 - t) + 0.25
    gmk = gm / k
    gk = -gmk * m
    gkk = gk * (kk > 0.0)
    gsp += gkk
    gr -= gkk
    gx = gmk * y + gsp * ex / (1.0 + ex)
    gy = gmk * x + gr * y / r
    return gx, gy


# --- W3-like: MLP losses -----------------------------------------------------------------


def mlp_tanh_bias_mse(W1, b1, W2, b2, x, y):
    return np.mean((np.tanh(x @ W1 + b1) @ W2 + b2 - y) ** 2)


def mlp_tanh_bias_mse_grad(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    r = h @ W2
    r += b2
    r -= y
    r *= 2.0 / r.size
    dh = r @ W2.T
    dh *= 1.0 - h * h
    return x.T @ dh, dh.sum(axis=0), h.T @ r, r.sum(axis=0)


def mlp_relu_bias_sum(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    return np.sum((h @ W2 + b2 - y) ** 2)


def mlp_relu_bias_sum_grad(W1, b1, W2, b2, x, y):
    z = x @ W1
    z += b1
    h = np.maximum(z, 0.0)
    r = h @ W2
    r += b2
    r -= y
    r *= 2.0
    dh = r @ W2.T
    dh *= z > 0.0
    return x.T @ dh, dh.sum(axis=0), h.T @ r, r.sum(axis=0)


def mlp_where_relu_sum(W1, b1, W2, b2, x, y):
    z = x @ W1 + b1
    h = np.where(z > 0, z, 0.0)
    return np.sum((h @ W2 + b2 - y) ** 2)


def mlp_where_relu_sum_grad(W1, b1, W2, b2, x, y):
    z = x @ W1
    z += b1
    h = np.maximum(z, 0.0)
    r = h @ W2
    r += b2
    r -= y
    r *= 2.0
    dh = r @ W2.T
    dh *= z > 0
    return x.T @ dh, dh.sum(axis=0), h.T @ r, r.sum(axis=0)


def mlp_sigmoid_two_mse(W1, b1, W2, b2, W3, b3, x, y):
    h1 = 1.0 / (1.0 + np.exp(-(x @ W1 + b1)))
    h2 = 1.0 / (1.0 + np.exp(-(h1 @ W2 + b2)))
    return np.mean((h2 @ W3 + b3 - y) ** 2)


def mlp_sigmoid_two_mse_grad(W1, b1, W2, b2, W3, b3, x, y):
    h1 = 1.0 / (1.0 + np.exp(-(x @ W1 + b1)))
    h2 = 1.0 / (1.0 + np.exp(-(h1 @ W2 + b2)))
    r = h2 @ W3
    r += b3
    r -= y
    r *= 2.0 / r.size
    d2 = r @ W3.T
    d2 *= h2 * (1.0 - h2)
    d1 = d2 @ W2.T
    d1 *= h1 * (1.0 - h1)
    return (x.T @ d1, d1.sum(axis=0), h1.T @ d2, d2.sum(axis=0), h2.T @ r, r.sum(axis=0))


def mlp_tanh_two_sum(W1, W2, W3, x, y):
    h1 = np.tanh(x @ W1)
    h2 = np.tanh(h1 @ W2)
    return 0.5 * np.sum((h2 @ W3 - y) ** 2)


def mlp_tanh_two_sum_grad(W1, W2, W3, x, y):
    h1 = np.tanh(x @ W1)
    h2 = np.tanh(h1 @ W2)
    r = h2 @ W3
    r -= y
    d2 = r @ W3.T
    d2 *= 1.0 - h2 * h2
    d1 = d2 @ W2.T
    d1 *= 1.0 - h1 * h1
    return x.T @ d1, h1.T @ d2, h2.T @ r


def mlp_tanh_bias_two_mse(W1, b1, W2, b2, W3, b3, x, y):
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    return np.mean((h2 @ W3 + b3 - y) ** 2)


def mlp_tanh_bias_two_mse_grad(W1, b1, W2, b2, W3, b3, x, y):
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    r = h2 @ W3
    r += b3
    r -= y
    r *= 2.0 / r.size
    d2 = r @ W3.T
    d2 *= 1.0 - h2 * h2
    d1 = d2 @ W2.T
    d1 *= 1.0 - h1 * h1
    return (x.T @ d1, d1.sum(axis=0), h1.T @ d2, d2.sum(axis=0), h2.T @ r, r.sum(axis=0))


def mlp_loss(W1, W2, x, y):
    """W3's program as written, run here at other sizes and in float32."""
    return np.mean((np.tanh(x @ W1) @ W2 - y) ** 2)


def mlp_loss_grad(W1, W2, x, y):
    a = np.tanh(x @ W1)
    r = a @ W2
    r -= y
    r *= 2.0 / r.size
    dz = r @ W2.T
    dz *= 1.0 - a * a
    return x.T @ dz, a.T @ r


# --- points -----------------------------------------------------------------------------


def chain_point(n: int, dtype: Any, inputs: int = 1, seed: int = 0) -> tuple[np.ndarray, ...]:
    """``inputs`` arrays of size ``n`` in [-1, 1], kept away from the chains' kinks."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(inputs):
        v = rng.uniform(-1.0, 1.0, n)
        v = np.where(np.abs(v) < 0.05, 0.3, v)
        out.append(v.astype(dtype))
    return tuple(out)


def mlp_point(batch: int, widths: tuple[int, ...], dtype: Any, bias: bool,
              seed: int = 0) -> tuple[np.ndarray, ...]:
    """Weights (and biases), inputs and targets of a ``widths[0]-...-widths[-1]`` MLP."""
    rng = np.random.default_rng(seed)
    params: list[np.ndarray] = []
    for n_in, n_out in zip(widths, widths[1:]):
        params.append(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in))
        if bias:
            params.append(rng.standard_normal(n_out) * 0.1)
    x = rng.standard_normal((batch, widths[0]))
    y = rng.standard_normal((batch, widths[-1]))
    return tuple(a.astype(dtype) for a in (*params, x, y))


Variant = tuple[str, str, Callable[..., Any], Callable[..., Any], tuple[np.ndarray, ...],
                tuple[int, ...]]

F32, F64 = np.float32, np.float64


def variants(small: bool = False) -> list[Variant]:
    """Every version with its point (built on demand: the MLP points are large).

    ``small``: the same programs at a few elements and a batch of 8 (the tests check the
    hand-written gradients against finite differences there: the formulas do not depend on
    the sizes, and a relu batch of 100,000 elements has kinks within any difference step).
    """
    def n(size: int) -> int:
        return min(size, 6) if small else size

    def mlp(batch: int, widths: tuple[int, ...], dtype: Any, bias: bool
            ) -> tuple[np.ndarray, ...]:
        if small:
            batch, widths = 8, tuple(5 + i for i in range(len(widths)))
        return mlp_point(batch, widths, dtype, bias)

    return [
        ("chain_where n64 f64", "W2", chain_where, chain_where_grad,
         chain_point(n(64), F64), (0,)),
        ("chain_where n256 f32", "W2", chain_where, chain_where_grad,
         chain_point(n(256), F32), (0,)),
        ("chain_where n4 f64", "W2", chain_where, chain_where_grad,
         chain_point(n(4), F64), (0,)),
        ("norm_two n4 f64", "W2", norm_two, norm_two_grad,
         chain_point(n(4), F64, 2), (0, 1)),
        ("norm_two n256 f32", "W2", norm_two, norm_two_grad,
         chain_point(n(256), F32, 2), (0, 1)),
        ("small_chain n256 f32", "W2", small_chain, small_chain_grad,
         chain_point(n(256), F32), (0,)),
        ("small_chain n4 f64", "W2", small_chain, small_chain_grad,
         chain_point(n(4), F64), (0,)),
        ("softplus_gate n32 f64", "W2", softplus_gate, softplus_gate_grad,
         chain_point(n(32), F64, 2), (0, 1)),
        ("softplus_gate n128 f32", "W2", softplus_gate, softplus_gate_grad,
         chain_point(n(128), F32, 2), (0, 1)),
        ("tanh_bias_mse b64 1024 f32", "W3", mlp_tanh_bias_mse, mlp_tanh_bias_mse_grad,
         mlp(64, (1024, 1024, 1024), F32, True), (0, 1, 2, 3)),
        ("relu_bias_sum b512 256 f32", "W3", mlp_relu_bias_sum, mlp_relu_bias_sum_grad,
         mlp(512, (256, 256, 256), F32, True), (0, 1, 2, 3)),
        ("where_relu_sum b64 1024 f32", "W3", mlp_where_relu_sum, mlp_where_relu_sum_grad,
         mlp(64, (1024, 1024, 1024), F32, True), (0, 1, 2, 3)),
        ("sigmoid_two_mse b512 128 f32", "W3", mlp_sigmoid_two_mse, mlp_sigmoid_two_mse_grad,
         mlp(512, (128, 128, 128, 128), F32, True), (0, 1, 2, 3, 4, 5)),
        ("tanh_two_sum b64 256 f32", "W3", mlp_tanh_two_sum, mlp_tanh_two_sum_grad,
         mlp(64, (256, 256, 256, 256), F32, False), (0, 1, 2)),
        ("tanh_bias_two_mse b64 128 f32", "W3", mlp_tanh_bias_two_mse,
         mlp_tanh_bias_two_mse_grad, mlp(64, (128, 128, 128, 128), F32, True),
         (0, 1, 2, 3, 4, 5)),
        ("relu_bias_sum b64 128 f32", "W3", mlp_relu_bias_sum, mlp_relu_bias_sum_grad,
         mlp(64, (128, 128, 128), F32, True), (0, 1, 2, 3)),
        ("mlp_loss b512 256 f32", "W3", mlp_loss, mlp_loss_grad,
         mlp(512, (256, 256, 256), F32, False), (0, 1)),
        ("mlp_loss b64 1024 f64", "W3", mlp_loss, mlp_loss_grad,
         mlp(64, (1024, 1024, 1024), F64, False), (0, 1)),
    ]


GOALS = {"W2": 1.10, "W3": 1.05}
