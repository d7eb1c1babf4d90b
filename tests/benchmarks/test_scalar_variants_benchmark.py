"""Keeps ``benchmarks/scalar_variants.py`` honest: every hand-written tangent of
``sgbench/scalar_variants.py`` agrees with central finite differences (so a ratio is
against a right derivative), and srcgrad's gradient agrees with it. No timing is asserted.
"""

import os
import sys

import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.insert(0, BENCHMARKS)

from sgbench.scalar_variants import variants  # noqa: E402

VARIANTS = variants()


@pytest.mark.parametrize("name, fn, tangent, args", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_each_hand_written_tangent_agrees_with_finite_differences_and_srcgrad(
        name, fn, tangent, args):
    want = numeric_gradient(fn, args, {}, 0)
    assert_close(tangent(*args), want, rtol=1e-5, atol=1e-6)
    assert_close(sg.grad(fn)(*args), tangent(*args), rtol=1e-8, atol=1e-12)
