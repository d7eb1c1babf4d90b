"""benchmarks/runtime_overhead.py runs and reports (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "runtime_overhead.py"


def test_runtime_overhead_benchmark_runs() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--rounds", "1", "--repeat", "1"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "srcgrad" in done.stdout and "numpy (by hand)" in done.stdout
    assert "us/op" in done.stdout
