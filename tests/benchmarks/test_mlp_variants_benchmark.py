"""Keeps ``benchmarks/mlp_variants.py`` honest: each small-MLP variant's hand-written
gradient agrees with finite differences (so the ratio it reports compares like with like),
srcgrad's gradient agrees with it, and the script runs. No timing is asserted."""

import os
import subprocess
import sys

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import numeric_gradient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.insert(0, BENCHMARKS)

from sgbench.mlp_variants import VARIANTS, point  # noqa: E402

# the variants' functions at a small point of their own widths
SMALL = {name: (f, by_hand, point(tuple(args[0].shape) + (args[2].shape[1],), 9,
                                  args[5].ndim == 2, seed=3))
         for name, (f, by_hand, args) in VARIANTS.items()}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_handwritten_variant_gradient_matches_finite_differences_and_srcgrad(name):
    f, by_hand, args = SMALL[name]
    want = by_hand(*args)
    for place in range(4):
        np.testing.assert_allclose(want[place], numeric_gradient(f, args, None, place),
                                   rtol=1e-6, atol=1e-7)
    got = sg.grad(f, wrt=(0, 1, 2, 3))(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_variants_script_runs_and_reports_every_variant():
    run = subprocess.run([sys.executable, os.path.join(BENCHMARKS, "mlp_variants.py"),
                          "--rounds", "1", "--only", "2-16-3"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "tanh_labels_sum 2-16-3" in run.stdout and "x  (hand" in run.stdout
