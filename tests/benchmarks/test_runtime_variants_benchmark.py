"""Keeps ``benchmarks/runtime_variants.py`` honest: each graph's gradient written by hand
agrees with finite differences of the same graph evaluated on plain NumPy arrays (so the
ratio it reports compares like with like), srcgrad's Tensor gradient agrees with it, and
the script runs. No timing is asserted."""

from __future__ import annotations

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

import runtime_variants  # noqa: E402

VARIANTS = runtime_variants.variants()


class _Plain:
    """An ndarray with the Tensor methods the graphs call (their values, nothing else)."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def _op(self, other, fn):
        return _Plain(fn(self.data, other.data if isinstance(other, _Plain) else other))

    def __add__(self, o): return self._op(o, np.add)
    def __radd__(self, o): return _Plain(o + self.data)
    def __sub__(self, o): return self._op(o, np.subtract)
    def __rsub__(self, o): return _Plain(o - self.data)
    def __mul__(self, o): return self._op(o, np.multiply)
    def __rmul__(self, o): return _Plain(o * self.data)
    def __truediv__(self, o): return self._op(o, np.divide)
    def __pow__(self, o): return self._op(o, np.power)
    def __matmul__(self, o): return self._op(o, np.matmul)
    def __neg__(self): return _Plain(-self.data)
    def sin(self): return _Plain(np.sin(self.data))
    def tanh(self): return _Plain(np.tanh(self.data))
    def exp(self): return _Plain(np.exp(self.data))
    def sigmoid(self): return _Plain(1.0 / (1.0 + np.exp(-self.data)))
    def relu(self): return _Plain(np.maximum(self.data, 0.0))
    def sum(self): return _Plain(np.sum(self.data))
    def mean(self): return _Plain(np.mean(self.data))


def _small(name):
    (graph, by_hand), _dtype, shapes = VARIANTS[name]
    rng = np.random.default_rng(5)
    shapes = tuple(tuple(min(n, 6) for n in s) for s in shapes)  # (a few elements suffice)
    return graph, by_hand, tuple(0.5 * rng.standard_normal(s) for s in shapes)


@pytest.mark.parametrize("name", sorted(n for n in VARIANTS if "two graphs" not in n))
def test_each_handwritten_gradient_matches_finite_differences_and_srcgrad(name):
    graph, by_hand, arrays = _small(name)
    want = by_hand(*arrays)

    def value(*args):
        return float(graph(*(_Plain(a) for a in args)).data)

    for place in range(3):
        np.testing.assert_allclose(want[place], numeric_gradient(value, arrays, None, place),
                                   rtol=1e-6, atol=1e-7)
    leaves = [sg.tensor(a, requires_grad=True) for a in arrays]
    graph(*leaves).backward()
    for leaf, w in zip(leaves, want):
        np.testing.assert_allclose(leaf.grad.numpy(), w, rtol=1e-9, atol=1e-12)


def test_two_graphs_on_shared_leaves_accumulate_both_gradients():
    graph, by_hand, arrays = _small("two graphs, shared leaves f32[4]")
    leaves = [sg.tensor(a, requires_grad=True) for a in arrays]
    graph(*leaves).backward()  # (the first graph's backward ran inside)
    for leaf, w in zip(leaves, by_hand(*arrays)):
        np.testing.assert_allclose(leaf.grad.numpy(), w, rtol=1e-9, atol=1e-12)


def test_runtime_variants_script_runs_and_reports():
    result = subprocess.run(
        [sys.executable, os.path.join(BENCHMARKS, "runtime_variants.py"), "--cpu-time",
         "--rounds", "1", "--min-sample-ms", "1", "--only", "W5,matmul 4x4"],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "W5 sin f32[4] 100 ops" in result.stdout and "matmul 4x4" in result.stdout
    assert "worst:" in result.stdout
