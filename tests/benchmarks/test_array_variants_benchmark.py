"""Keeps ``benchmarks/array_variants.py`` honest: every hand-written gradient of
``sgbench/array_variants.py`` agrees with central finite differences (so a ratio is against
a right gradient), and srcgrad's gradient agrees with it, in its dtype. No timing is
asserted. Checked at the versions' small points (the formulas do not depend on sizes)."""

import os
import sys

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = os.path.join(ROOT, "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.insert(0, BENCHMARKS)

from sgbench.array_variants import variants  # noqa: E402

VARIANTS = variants(small=True)


def as_tuple(gradients):
    return gradients if isinstance(gradients, tuple) else (gradients,)


@pytest.mark.parametrize("name, group, fn, by_hand, args, wrt", VARIANTS,
                         ids=[v[0] for v in VARIANTS])
def test_each_hand_written_gradient_agrees_with_finite_differences_and_srcgrad(
        name, group, fn, by_hand, args, wrt):
    args64 = tuple(np.asarray(a, dtype=np.float64) for a in args)
    want = as_tuple(by_hand(*args64))
    for place, w in zip(wrt, want, strict=True):
        assert_close(w, numeric_gradient(fn, args64, {}, place), rtol=1e-5, atol=1e-6,
                     what=f"{name}: hand-written d/d argument {place}")
    got = sg.grad(fn, wrt=wrt)(*args)
    rtol = 1e-4 if args[0].dtype == np.float32 else 1e-8
    for g, w in zip(got, as_tuple(by_hand(*args)), strict=True):
        assert g.dtype == w.dtype
        assert_close(g, w, rtol=rtol, atol=rtol * float(np.max(np.abs(w))),
                     what=f"{name}: srcgrad")
