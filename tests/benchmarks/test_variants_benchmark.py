"""Keeps ``benchmarks/variants.py`` working: the hand-written Hessians of
``sgbench/hessian_variants.py`` agree with finite differences of an exact gradient, every
``sgbench/ode_variants.py`` program's srcgrad gradient agrees with finite differences, and
one tiny run of the script writes its rows. No timing is asserted."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import numeric_gradient, numeric_hessian

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.insert(0, BENCHMARKS)

from sgbench import hessian_variants, ode_variants  # noqa: E402

HESSIANS = hessian_variants.variants(sizes=(7,))
ODES = ode_variants.variants(steps_list=(3,))


@pytest.mark.parametrize("label, f, hand, args", HESSIANS, ids=[v[0] for v in HESSIANS])
def test_hand_written_hessian_matches_finite_differences(label, f, hand, args):
    want = numeric_hessian(sg.grad(f, optimize=False), args, 0)
    np.testing.assert_allclose(hand(*args), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label, f, args", ODES, ids=[v[0] for v in ODES])
def test_ode_variant_gradient_matches_finite_differences(label, f, args):
    np.testing.assert_allclose(sg.grad(f)(*args), numeric_gradient(f, args, {}, 0),
                               rtol=1e-5, atol=1e-7)


def test_one_tiny_run_writes_its_rows(tmp_path):
    out = tmp_path / "rows.json"
    subprocess.run([sys.executable, os.path.join(BENCHMARKS, "variants.py"), "--match",
                    ", 20", "--rows", "hessian", "--rounds", "1", "--min-sample-ms", "0.1",
                    "--json", str(out)], check=True, cwd=ROOT, capture_output=True)
    rows = json.loads(out.read_text())
    assert rows and all(r.get("ratio", 0) > 0 for r in rows), rows
