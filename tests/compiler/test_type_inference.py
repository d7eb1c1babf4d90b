"""Type inference's shortcut for NumPy ufuncs (``type_inference.ufunc_type``) gives the type
the examples give, for every plain ufunc rule of the table and every mix of operand kinds
it takes (arrays and NumPy scalars of each dtype, Python numbers), and leaves to the
examples what only they can decide."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from srcgrad.compiler import type_inference as TI
from srcgrad.compiler.ir import types as T
from srcgrad.compiler.ir.core import Op, Value
from srcgrad.rules import RULES

DTYPES = ("float16", "float32", "float64", "int32", "int64", "uint8", "bool", "complex128")
KINDS = ([T.AType("array", n, d) for n in (0, 1, 2) for d in DTYPES]
         + [T.AType("scalar", 0, d) for d in DTYPES] + [T.FLOAT, T.INT])


def _ufunc_rules():
    return sorted(name for name, rule in RULES.items()
                  if type(rule.impl) is np.ufunc and rule.impl.signature is None
                  and rule.impl.nout == 1 and not rule.params and not rule.user)


def _by_examples(rule, operands):
    with np.errstate(all="ignore"):
        return TI._infer_type(rule, operands)


@pytest.mark.parametrize("name", _ufunc_rules())
def test_the_ufunc_shortcut_agrees_with_the_examples(name):
    rule = RULES[name]
    taken = 0
    for kinds in itertools.product(KINDS, repeat=len(rule.inputs)):
        operands = {k: Value(type=t) for k, t in zip(rule.inputs, kinds)}
        fast = TI.ufunc_type(rule, operands)
        if fast is None:
            continue
        taken += 1
        assert fast == _by_examples(rule, operands), (name, kinds)
    if rule.kind == "elementwise":
        assert taken, name  # (each elementwise ufunc rule takes the shortcut somewhere)


def test_what_only_examples_decide_is_left_to_them():
    multiply = RULES["multiply"]
    array = Value(type=T.AType("array", 1, "float64"))
    # a constant (a captured array broadcasts by its own shape), Python numbers alone
    # (the operator's or math's result: 2 * 3 is an int), an operand of unknown kind
    const = Op("const", {}, [Value(type=T.AType("array", 2, "float64"))],
               {"value": np.ones((4, 1))}).out
    for operands in ({"x": array, "y": const}, {"x": Value(type=T.FLOAT), "y": Value(type=T.INT)},
                     {"x": array, "y": Value(type=T.ANY)}, {"x": array, "y": Value(type=T.NUMBER)}):
        assert TI.ufunc_type(multiply, operands) is None
    # an object array (its elements' own arithmetic decides what comes out)
    objects = Value(type=T.AType("array", 1, "object"))
    assert TI.ufunc_type(RULES["sin"], {"x": objects}) is None
    # a rule with parameters, and a generalized ufunc (matmul has a core signature)
    assert TI.ufunc_type(RULES["matmul"], {"x": array, "y": array}) is None


def test_no_loop_for_the_dtypes_is_left_to_the_examples():
    # np.subtract has no bool loop: the examples fail too, and say so their way (ANY)
    subtract = RULES["subtract"]
    flags = Value(type=T.AType("array", 1, "bool"))
    operands = {"x": flags, "y": flags}
    assert TI.ufunc_type(subtract, operands) is None
    assert TI.infer_type(subtract, operands) == T.ANY
