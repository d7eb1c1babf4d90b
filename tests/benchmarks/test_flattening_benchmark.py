"""Keeps ``benchmarks/flattening.py`` working (no timing asserted): both versions compile,
agree, and a tiny run reports the three figures."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_flattening_benchmark_runs_and_reports_its_figures(capsys):
    spec = importlib.util.spec_from_file_location(
        "srcgrad_benchmark_flattening", os.path.join(ROOT, "benchmarks", "flattening.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(["--rounds", "1", "--calls", "10"])
    assert set(result) == {"flat_us", "dict_us", "overhead_us"}
    assert "flattening and rebuilding add" in capsys.readouterr().out
