"""Keeps ``benchmarks/programs.py`` working: its hand-written derivatives agree with finite
differences, and one tiny run checks every srcgrad result against them and writes its
reports. No timing is asserted.
"""

import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from tests.fd import numeric_gradient, numeric_hessian

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, "benchmarks")


@pytest.fixture(scope="module")
def programs():
    if BENCHMARKS not in sys.path:
        sys.path.insert(0, BENCHMARKS)
    spec = importlib.util.spec_from_file_location("srcgrad_benchmark_programs",
                                                  os.path.join(BENCHMARKS, "programs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_handwritten_mlp_cross_entropy_gradient_matches_finite_differences(programs):
    from sgbench import programs as P

    args = P.mlp_point(batch=12)
    grads = P.mlp_xent_grad(*args)
    for place in range(4):
        _close(grads[place], numeric_gradient(P.mlp_xent, args, {}, place))


def test_handwritten_rk4_sensitivity_matches_finite_differences(programs):
    from sgbench import programs as P

    theta, s0, _ = P.rk4_point()
    _close(P.rk4_loss_grad(theta, s0, 7), numeric_gradient(P.rk4_loss, (theta, s0, 7), {}, 0))


def test_handwritten_attention_gradient_matches_finite_differences(programs):
    from sgbench import programs as P

    args = P.attention_point(batch=2, length=3, width=4)
    grads = P.attention_grad(*args)
    for place in range(3):
        _close(grads[place], numeric_gradient(P.attention, args, {}, place))


def test_handwritten_looping_hessian_matches_differences_of_the_gradient(programs):
    from sgbench import handwritten
    from sgbench import programs as P
    from sgbench.workloads import hessian_point

    p = hessian_point(7)
    _close(P.chain_energy_hessian_loop(p), numeric_hessian(handwritten.chain_energy_grad, (p,)))


def test_numpy_tape_backpropagates_the_runtime_graph(programs):
    import runtime_overhead
    from sgbench.tape import Var

    rng = np.random.default_rng(3)
    x0, w0, b0 = (rng.standard_normal(4) for _ in range(3))
    taped = runtime_overhead.graph_step(Var, x0, w0, b0)()

    def graph(x):
        h = x
        for _ in range(runtime_overhead.STEPS):
            h = np.sin(h * w0 + b0) * 0.5
        return np.sum(h)

    _close(taped, numeric_gradient(graph, (x0,), {}, 0))


def test_a_tiny_run_checks_every_row_and_writes_the_reports(programs, tmp_path, monkeypatch):
    from sgbench.machine import THREAD_VARIABLES

    for name in (*THREAD_VARIABLES, "XLA_FLAGS"):  # main() sets them; restored afterwards
        monkeypatch.delenv(name, raising=False)
    readme = tmp_path / "README.md"
    readme.write_text(f"## Performance\n\n{programs.README_START}\nold\n{programs.README_END}\n"
                      "after\n")
    out_json, out_md = tmp_path / "p.json", tmp_path / "p.md"
    rows = "W2,mlp,rk4,attention,hessian,W5,first_call"
    assert programs.main(["--tiny", "--rows", rows, "--rounds", "1", "--min-sample-ms", "0",
                          "--json", str(out_json), "--md", str(out_md),
                          "--readme", str(readme)]) == 0
    run = json.loads(out_json.read_text())
    results = {r["key"]: r for r in run["rows"]}
    assert list(results) == rows.split(",")
    # "ok" means srcgrad's derivative matched the hand-written one before it was timed
    assert {k: r["status"] for k, r in results.items()} == dict.fromkeys(results, "ok")
    markdown = out_md.read_text()
    assert "| workload | measured as | srcgrad | goal | met |" in markdown
    text = readme.read_text()
    assert "old" not in text and text.endswith("after\n") and "| mlp small MLP" in text
