"""Keeps ``benchmarks/compile_time.py`` working: one run at a tiny size (no timing asserted)."""

import importlib.util
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_benchmark():
    path = os.path.join(ROOT, "benchmarks", "compile_time.py")
    spec = importlib.util.spec_from_file_location("srcgrad_benchmark_compile_time", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_function_has_the_requested_length():
    bench = load_benchmark()
    source = bench.straight_line_source(12)
    body = [line for line in source.splitlines() if line.startswith("    v")]
    assert len(body) == 12
    namespace = {}
    exec(source, namespace)
    assert np.isfinite(namespace["f"](np.linspace(-1, 1, 4), np.ones(4)))


def test_benchmark_runs_at_the_smallest_size(capsys):
    bench = load_benchmark()
    assert bench.main(["--sizes", "5,10", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "CPUs" in out and "growth" in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:2] in ("5 ", "10")]
    assert [r[0] for r in rows] == ["5", "10"]


def test_benchmark_times_by_cpu_time_when_asked(capsys):
    bench = load_benchmark()
    assert bench.main(["--sizes", "5", "--repeats", "1", "--cpu-time"]) == 0
    out = capsys.readouterr().out
    assert "(thread CPU time)" in out
    assert bench.main(["--sizes", "5", "--repeats", "1"]) == 0
    assert "(wall time)" in capsys.readouterr().out
