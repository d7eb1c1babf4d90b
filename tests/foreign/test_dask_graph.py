"""The Dask graph of srcgrad's gradient is the hand-written one's: no broadcast cotangent.

A full reduction's cotangent (``np.mean``'s) used to be broadcast to the data's length
before use: on Dask one chunk as long as all the data, materialised on one worker and then
re-chunked to the data's chunks (``broadcast_to`` and ``rechunk`` tasks; on a cluster the
pieces shipped between workers). ``passes/spread.py`` keeps it a number, so the gradient's
graph, once Dask has fused its elementwise steps, has as many tasks as hand-written Dask's.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-z)) + (1 - y) * z)


def hand_written_gradient(w, X, y):
    return X.T @ (1 / (1 + np.exp(-(X @ w))) - y) / X.shape[0]


def _tasks(a) -> list[str]:
    """The task names of ``a``'s graph as Dask runs it (elementwise steps fused, so two
    spellings of one formula count alike)."""
    (a,) = dask.optimize(a)
    return [str(k[0] if isinstance(k, tuple) else k) for k in dict(a.__dask_graph__())]


def test_logistic_regression_gradient_has_the_hand_written_dask_graph():
    rng = np.random.default_rng(11)
    X = da.from_array(rng.normal(size=(400, 5)), chunks=(50, 5))
    y = da.from_array((rng.random(400) > 0.5) * 1.0, chunks=50)
    w = rng.normal(size=5)
    grad = sg.grad(loss)(w, X, y)
    mine, theirs = _tasks(grad), _tasks(hand_written_gradient(w, X, y))
    assert not [t for t in mine if "broadcast_to" in t or "rechunk" in t], mine
    assert len(mine) <= len(theirs), (len(mine), len(theirs))
    assert_close(grad.compute(), hand_written_gradient(w, X, y).compute(), rtol=1e-12,
                 atol=1e-12)
