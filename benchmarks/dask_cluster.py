"""srcgrad's gradient on a Dask cluster against hand-written Dask of the same loss.

Starts a ``dask.distributed.LocalCluster`` on loopback (127.0.0.1, 2 worker processes, one
thread each, no dashboard), makes a logistic-regression data set of 5e6 x 8 rows on the
workers (chunked by rows, persisted there), and times one value-and-gradient step:

- srcgrad: ``sg.value_and_grad(loss)(w, X, y)`` builds the lazy graph (NumPy ``w``, Dask
  ``X``, ``y``), then one ``client.compute`` of value and gradient;
- hand-written: the same loss and its gradient ``X.T @ (sigmoid(X @ w) - y) / n`` written
  in ``dask.array`` by hand, computed the same way.

Both are checked against each other before timing; each round times graph building plus
the compute, alternating the two. Reports the median of the rounds and the ratio (goal:
within 1.3x of hand-written Dask). Not part of the test suite.

    python benchmarks/dask_cluster.py [--rows 5000000] [--cols 8] [--chunks 10]
                                      [--rounds 7] [--md benchmarks/results/dask.md]
                                      [--scheduler cluster|threads]

``--scheduler threads`` times the same two graphs on Dask's threaded scheduler in this
process (2 threads, no cluster): the graphs' own cost, without the network.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from typing import Any

import numpy as np


def loss(w: Any, X: Any, y: Any) -> Any:
    z = X @ w
    return np.mean(np.log1p(np.exp(-z)) + (1 - y) * z)


def hand_written(w: np.ndarray, X: Any, y: Any) -> tuple[Any, Any]:
    """The loss and its gradient, written by hand with dask.array."""
    z = X @ w
    value = (np.log1p(np.exp(-z)) + (1 - y) * z).mean()
    grad = X.T @ (1 / (1 + np.exp(-z)) - y) / X.shape[0]
    return value, grad


def _timed(client: Any, step: Any, *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value, grad = step(*args)
    if client is None:  # the threaded scheduler of this process
        import dask
        out = list(dask.compute(value, grad, scheduler="threads", num_workers=2))
    else:
        out = client.compute([value, grad], sync=True)
    return time.perf_counter() - start, out


class _Threads:
    """Stands in for the cluster and its client: ``persist`` runs in this process."""

    def __enter__(self) -> _Threads:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def persist(self, arrays: list[Any]) -> list[Any]:
        import dask
        return list(dask.persist(*arrays, scheduler="threads", num_workers=2))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--cols", type=int, default=8)
    parser.add_argument("--chunks", type=int, default=10, help="row chunks of the data")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--md", metavar="PATH", help="write the markdown report here")
    parser.add_argument("--scheduler", choices=("cluster", "threads"), default="cluster")
    args = parser.parse_args(argv)

    import dask
    import dask.array as da
    import distributed

    import srcgrad as sg

    grad_step = sg.value_and_grad(loss)
    threads = args.scheduler == "threads"
    with (_Threads() if threads else distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, worker_dashboard_address=None)) as cluster, \
            (_Threads() if threads else distributed.Client(cluster)) as client:
        rng = da.random.default_rng(0)
        step = args.rows // args.chunks
        X = rng.normal(size=(args.rows, args.cols), chunks=(step, args.cols))
        y = (rng.random(args.rows, chunks=step) > 0.5).astype(np.float64)
        X, y = client.persist([X, y])
        if threads:
            client = None
        else:
            distributed.wait([X, y])
        w = np.linspace(-0.5, 0.5, args.cols)

        _, (v_sg, g_sg) = _timed(client, grad_step, w, X, y)  # warm-up: compile, imports
        _, (v_hw, g_hw) = _timed(client, hand_written, w, X, y)
        np.testing.assert_allclose(v_sg, v_hw, rtol=1e-10)
        np.testing.assert_allclose(g_sg, g_hw, rtol=1e-9, atol=1e-12)

        times: dict[str, list[float]] = {"srcgrad": [], "hand-written": []}
        for _ in range(args.rounds):
            times["srcgrad"].append(_timed(client, grad_step, w, X, y)[0])
            times["hand-written"].append(_timed(client, hand_written, w, X, y)[0])

    median = {k: statistics.median(v) for k, v in times.items()}
    result = {"scheduler": args.scheduler, "rows": args.rows, "cols": args.cols,
              "chunks": args.chunks,
              "rounds": args.rounds, "median_s": median,
              "min_s": {k: min(v) for k, v in times.items()},
              "ratio": median["srcgrad"] / median["hand-written"],
              "versions": {"dask": dask.__version__, "numpy": np.__version__,
                           "python": platform.python_version()}}
    report = _markdown(result)
    print(report)
    if args.md:
        with open(args.md, "w") as out:
            out.write(report)
    return result


def _markdown(r: dict[str, Any]) -> str:
    m, lo = r["median_s"], r["min_s"]
    return (
        "# srcgrad on a Dask cluster\n\n"
        f"Logistic regression, value and gradient, {r['rows']:,} x {r['cols']} float64 rows "
        f"in {r['chunks']} row chunks, persisted "
        + ("on a loopback `LocalCluster` (2 worker processes, 1 thread each); one step = "
           "building the graph + one `client.compute`. " if r["scheduler"] == "cluster" else
           "in memory, Dask's threaded scheduler (2 threads); one step = building the graph "
           "+ one `dask.compute`. ")
        + f"Median (min) of {r['rounds']} rounds, alternating. dask {r['versions']['dask']}, "
        f"numpy {r['versions']['numpy']}, Python {r['versions']['python']}. Made by "
        f"`python benchmarks/dask_cluster.py --rounds {r['rounds']} --scheduler "
        f"{r['scheduler']}`.\n\n"
        "| | seconds per step |\n|---|---|\n"
        f"| srcgrad `sg.value_and_grad(loss)(w, X, y)` | {m['srcgrad']:.3f} "
        f"({lo['srcgrad']:.3f}) |\n"
        f"| hand-written `dask.array` | {m['hand-written']:.3f} ({lo['hand-written']:.3f}) |\n"
        f"| ratio | **{r['ratio']:.2f}x** |\n")


if __name__ == "__main__":
    main()
