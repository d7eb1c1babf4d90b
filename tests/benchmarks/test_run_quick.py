"""Keeps ``benchmarks/run.py`` working: its baselines, its checks, and one tiny run.

No timing is asserted anywhere: only that the harness runs, checks gradients, and writes
its reports. Peers are never needed (``--systems srcgrad``).
"""

import importlib.util
import json
import math
import os
import sys

import numpy as np
import pytest

from tests.fd import numeric_gradient, numeric_hessian

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, "benchmarks")


@pytest.fixture(scope="module")
def bench():
    if BENCHMARKS not in sys.path:
        sys.path.insert(0, BENCHMARKS)
    spec = importlib.util.spec_from_file_location("srcgrad_benchmark_run",
                                                  os.path.join(BENCHMARKS, "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central_difference(f, x):
    """d f / dx by the suite's one central-difference helper (``tests/fd.py``)."""
    return numeric_gradient(f, (x,), {}, 0)


def test_handwritten_gradients_match_finite_differences(bench):
    from sgbench import handwritten as H
    from sgbench import workloads as W

    x = np.linspace(-1.0, 1.0, 16)
    assert np.allclose(H.small_chain_grad(x), central_difference(W.small_chain, x),
                       rtol=1e-6, atol=1e-8)
    fd = central_difference(lambda v: W.scalar_loop(float(v), 20), 0.5)
    assert math.isclose(H.scalar_loop_grad(0.5, 20), float(fd), rel_tol=1e-6)
    fd = central_difference(lambda v: W.newton_fixed_point(float(v)), 5.0)
    assert math.isclose(H.newton_fixed_point_grad(5.0), float(fd), rel_tol=1e-5)
    rng = np.random.default_rng(0)
    W1, W2, xs, ys = (rng.standard_normal(s) for s in ((4, 3), (3, 2), (5, 4), (5, 2)))
    dW1, dW2 = H.mlp_loss_grad(W1, W2, xs, ys)
    assert np.allclose(dW1, central_difference(lambda w: W.mlp_loss(w, W2, xs, ys), W1),
                       rtol=1e-6, atol=1e-9)
    assert np.allclose(dW2, central_difference(lambda w: W.mlp_loss(W1, w, xs, ys), W2),
                       rtol=1e-6, atol=1e-9)
    p = W.hessian_point(8)
    assert np.allclose(H.chain_energy_grad(p), central_difference(W.chain_energy, p),
                       rtol=1e-6, atol=1e-8)
    assert np.allclose(H.chain_energy_hessian(p), numeric_hessian(H.chain_energy_grad, (p,)),
                       rtol=1e-6, atol=1e-7)


def test_a_wrong_or_failing_system_is_reported_not_timed(bench):
    from sgbench import measure, systems, workloads

    class OffByAThousandth(systems.HandWritten):
        key, label = "off", "off by 0.1%"

        def build(self, fn, workload):
            call, first = super().build(fn, workload)
            return (lambda: tuple(1.001 * g for g in self.to_numpy(call()))), first

    class Raising(systems.HandWritten):
        key, label = "raising", "raising"

        def build(self, fn, workload):
            raise TypeError("no rule for sin")

    workload = workloads.make_workloads()["W2"]
    plan = bench_plan()
    result = measure.measure_workload(
        workload, [systems.HandWritten(), OffByAThousandth(), Raising()], plan)["systems"]
    assert result["handwritten"]["status"] == "ok" and result["handwritten"]["ratio"] == 1.0
    assert result["off"]["status"] == "wrong" and "median_s" not in result["off"]
    assert result["raising"]["status"] == "cannot"
    assert "TypeError: no rule for sin" in result["raising"]["attempts"][0]["reason"]


def bench_plan():
    from sgbench.timing import TimingPlan

    return TimingPlan(rounds=1, min_sample_s=0.0)


def test_one_workload_runs_end_to_end_without_peers(bench, tmp_path, monkeypatch):
    from sgbench.machine import THREAD_VARIABLES

    for name in (*THREAD_VARIABLES, "XLA_FLAGS"):  # main() sets them; restored afterwards
        monkeypatch.delenv(name, raising=False)
    out_json, out_md = tmp_path / "run.json", tmp_path / "run.md"
    status = bench.main(["--systems", "srcgrad", "--workloads", "W2", "--rounds", "1",
                         "--min-sample-ms", "0", "--no-memory", "--no-hessian",
                         "--json", str(out_json), "--md", str(out_md)])
    assert status == 0
    run = json.loads(out_json.read_text())
    systems = run["workloads"]["W2"]["systems"]
    assert set(systems) == {"handwritten", "handwritten_reverse", "srcgrad"}
    assert systems["handwritten"]["ratio"] == 1.0
    assert systems["srcgrad"]["status"] in ("ok", "cannot", "wrong")
    if systems["srcgrad"]["status"] == "ok":
        assert systems["srcgrad"]["ratio"] > 0 and systems["srcgrad"]["first_call_ms"] > 0
    assert run["machine"]["cpu"] and run["machine"]["numpy"] == np.__version__
    markdown = out_md.read_text()
    assert "| workload | hand-written | hand-written reverse sweep | srcgrad |" in markdown
    assert "W2 small-array chain" in markdown


@pytest.mark.parametrize("key", ["W1", "W4"])
def test_forward_tangent_baselines_agree_with_the_reverse_sweeps(bench, key):
    """W1 and W4 (one float input) are measured against the forward tangent carried through
    the loop; it must be the same derivative as the stored-trajectory reverse sweep."""
    from sgbench.handwritten import GRADIENTS, REVERSE_SWEEPS
    from sgbench.workloads import make_workloads

    workload = make_workloads()[key]
    for scale in (0.5, 1.0, 1.5):
        args = [a * scale if isinstance(a, float) else a for a in workload.args]
        assert GRADIENTS[key](*args) == pytest.approx(REVERSE_SWEEPS[key](*args), rel=1e-12)
