"""Keeps ``benchmarks/checkpoint.py`` working (no timing or memory asserted): its hand-written
pair is right (finite differences), and a tiny run checks all three gradients against each
other and reports memory and time ratios to the unmarked loop."""

import importlib.util
import math
import os

import numpy as np

from tests.fd import assert_close, numeric_gradient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_benchmark():
    spec = importlib.util.spec_from_file_location(
        "srcgrad_benchmark_checkpoint", os.path.join(ROOT, "benchmarks", "checkpoint.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hand_written_pair_matches_finite_differences():
    bench = load_benchmark()
    rng = np.random.default_rng(3)
    s, W = rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    expected = numeric_gradient(bench.loss_unmarked, [s, W, 3], None, 1)
    assert_close(bench.hand_written_grad(s, W, 3), expected)


def test_checkpoint_benchmark_runs_at_a_tiny_size(capsys):
    bench = load_benchmark()
    result = bench.main(["--steps", "3", "--rows", "4", "--cols", "3", "--rounds", "1"])
    assert set(result) == {"unmarked", "checkpointed", "hand-written"}
    assert result["unmarked"]["memory_ratio"] == 1.0
    for row in result.values():
        assert all(math.isfinite(v) and v > 0 for v in row.values())
    assert "ratios to unmarked" in capsys.readouterr().out
