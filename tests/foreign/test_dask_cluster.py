"""A gradient computed on a Dask cluster: loopback ``LocalCluster``, two worker processes.

The logistic-regression loss of a million rows is generated on the workers, its value and
gradient are built by srcgrad's emitted code as one lazy graph (NumPy parameters, Dask
data: the gradient is a Dask array), computed by the cluster in one ``compute`` and
compared with the same gradient of the rows pulled to NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

ROWS, COLS = 1_000_000, 4


def logistic_loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-z)) + (1 - y) * z)


@pytest.mark.timeout(120)
def test_value_and_grad_on_a_loopback_local_cluster_equals_numpy():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        rng = da.random.default_rng(170)
        X = rng.normal(size=(ROWS, COLS), chunks=(ROWS // 4, COLS))
        y = (rng.random(ROWS, chunks=ROWS // 4) > 0.5).astype(np.float64)
        X, y = client.persist([X, y])  # the data set lives on the workers
        w = np.linspace(-0.5, 0.5, COLS)

        value, grad = sg.value_and_grad(logistic_loss)(w, X, y)
        assert isinstance(value, da.Array) and isinstance(grad, da.Array)
        value, grad = client.compute([value, grad], sync=True)

        X_np, y_np = client.compute([X, y], sync=True)
    value_np, grad_np = sg.value_and_grad(logistic_loss)(w, X_np, y_np)
    assert isinstance(grad_np, np.ndarray) and grad.shape == (COLS,)
    assert_close(value, value_np, rtol=1e-10, atol=1e-12, what="value")
    assert_close(grad, grad_np, rtol=1e-10, atol=1e-12, what="gradient")
