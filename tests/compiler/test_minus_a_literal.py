"""``x + -1.0`` printed ``x - 1.0`` (``backend/expressions.py``): folding a tangent's
``- da`` with ``da == 1.0`` leaves an addition of a negative literal. The same value on real
numbers, bit for bit; never on complex numbers or values of unknown type."""

import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.backend.expressions import _minus_a_float
from srcgrad.compiler.ir import types as T
from srcgrad.compiler.ir.core import Op, Value
from tests.fd import assert_close, numeric_gradient


def lambert(a):
    w = 1.0
    for _ in range(4):
        e = math.exp(w)
        f = w * e - a
        w = w - f / (e * (w + 1.0))
    return w


def test_a_tangents_minus_one_reads_as_a_subtraction():
    text = sg.source(sg.grad(lambert), 3.0)
    assert "+ -" not in text, text
    assert " - 1.0\n" in text, text
    for a in (3.0, 0.5, -0.2):
        assert_close(sg.grad(lambert)(a), numeric_gradient(lambert, (a,), {}, 0))


def _const(c):
    return Op("const", {}, [Value(type=T.FLOAT)], {"value": c}).out


@pytest.mark.parametrize("t, ok", [
    (T.FLOAT, True), (T.INT, True), (T.NUMBER, True), (T.AType("scalar", 0, "float32"), True),
    (T.AType("array", 2, "float64"), True), (T.AType("array", 1, "bool"), True),
    (T.AType("scalar", 0, "complex128"), False), (T.AType("array", 1, "complex64"), False),
    (T.ANY, False), (T.AType("array", 1, None), False), (None, False)])
def test_only_real_values_subtract(t, ok):
    assert _minus_a_float(Value(type=t), _const(-1.0)) is ok


@pytest.mark.parametrize("c", [1.0, 0.0, math.nan, -math.nan])
def test_only_a_negative_float_literal(c):
    # (+0.0 stays x + 0.0; -0.0 prints x - 0.0; a nan literal keeps its sign bit as written)
    assert _minus_a_float(Value(type=T.FLOAT), _const(c)) is False
    assert _minus_a_float(Value(type=T.FLOAT), _const(-1)) is False  # (an int: x + -1)


def _bits(v):
    return np.asarray(v, dtype=np.float64).view(np.uint64).tolist()


def test_adding_a_negative_is_subtracting_bit_for_bit():
    # the claim the printing rests on, over the edges (signed zeros, inf, nan, subnormal)
    xs = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1e308, -1e308, math.inf, -math.inf,
          math.nan, 3.7, 2.0 ** 53 + 1]
    for c in (1.0, 0.0, 5e-324, 1e308, math.inf, 0.3):
        for x in xs:
            assert _bits(x + -c) == _bits(x - c), (x, c)
        arr32 = np.array(xs, dtype=np.float32)
        assert (arr32 + -c).view(np.uint32).tolist() == (arr32 - c).view(np.uint32).tolist()
        assert _bits(np.float64(3.0) + -c) == _bits(np.float64(3.0) - c)
    z = complex(1.0, -0.0)  # and why complex values are left alone
    assert math.copysign(1.0, (z + -1.0).imag) != math.copysign(1.0, (z - 1.0).imag)
