"""The memo of inferred types (``compiler/type_inference.py``): a compile meets one
primitive on the same operand kinds many times and infers its type once; constants that
compare equal but type differently (``2``, ``2.0``, ``True``) are never one key."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import type_inference as TI
from srcgrad.compiler.ir import types as T
from srcgrad.compiler.ir.builder import Builder
from srcgrad.compiler.ir.core import Block, Value
from srcgrad.rules import rule_named


def _operands(x_type: T.AType, y: object) -> dict[str, object]:
    b = Builder(Block())
    return {"x": Value(type=x_type), "y": b.const(y)}


INT_VECTOR = T.AType("array", 1, "int64")


@pytest.mark.parametrize("exponent, want", [(2, "int64"), (2.0, "float64"),
                                            (True, "int64")])
def test_equal_constants_of_other_types_are_other_keys(exponent, want):
    power = rule_named("power")
    TI.forget_types()
    for y in (2, 2.0, True):  # (all in the memo before the one asked about)
        TI.infer_type(power, _operands(INT_VECTOR, y))
    assert TI.infer_type(power, _operands(INT_VECTOR, exponent)).dtype == want


def test_a_second_meeting_is_not_inferred_again(monkeypatch):
    multiply = rule_named("multiply")
    TI.forget_types()
    first = TI.infer_type(multiply, _operands(T.AType("array", 2, "float32"), 0.5))
    monkeypatch.setattr(TI, "_infer_type", lambda *a: pytest.fail("inferred again"))
    again = TI.infer_type(multiply, _operands(T.AType("array", 2, "float32"), 0.5))
    assert again == first == T.AType("array", 2, "float32")
    # another operand kind is inferred
    with pytest.raises(pytest.fail.Exception):
        TI.infer_type(multiply, _operands(T.AType("array", 1, "float32"), 0.5))


def test_clear_cache_forgets_the_types():
    TI.infer_type(rule_named("sin"), {"x": Value(type=T.AType("array", 1, "float64"))})
    assert TI._MEMO
    sg.clear_cache()
    assert not TI._MEMO


def test_gradients_agree_with_the_memo_warm_and_cold():
    def f(x, k):
        return np.sum(x ** k) + np.sum(x ** 2.0) * k

    x = np.linspace(0.5, 1.5, 4)
    sg.clear_cache()
    cold = sg.grad(f)(x, 3)
    warm = sg.grad(lambda x, k: np.sum(x ** k) + np.sum(x ** 2.0) * k)(x, 3)
    want = 3 * x ** 2 + 2 * x * 3
    np.testing.assert_allclose(cold, want, rtol=1e-12)
    np.testing.assert_allclose(warm, want, rtol=1e-12)
