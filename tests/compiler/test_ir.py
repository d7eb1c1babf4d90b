"""The IR: printer text, verifier, builder and cloning."""

import numpy as np
import pytest

from srcgrad.compiler.frontend import lower
from srcgrad.compiler.ir import types as T
from srcgrad.compiler.ir.builder import Builder, clone_function
from srcgrad.compiler.ir.core import Block, Function, Op, Value
from srcgrad.compiler.ir.printer import print_function
from srcgrad.compiler.ir.verify import IRError, verify


def straight(x, n):
    y = np.sin(x) * 2.0
    y = y + n
    return y.sum()


def test_printer_text_is_stable():
    ir, _ = lower(straight, [T.AType("array", 1, "float64"), T.INT])
    text = print_function(ir)
    body = [line.split("#")[0].rstrip() for line in text.splitlines()[1:]]
    assert body == [
        "  %0 = sin(x=%x)",
        "  %y = multiply(x=%0, y=2.0)",
        "  %y.1 = add(x=%y, y=%n)",
        "  %1 = sum(x=%y.1, axis=None, keepdims=False)",
        "  return %1",
        "}",
    ]
    assert text.splitlines()[0].startswith("func straight(%x, %n) {")
    assert text.splitlines()[0].endswith(f"test_ir.py:{straight.__code__.co_firstlineno}")
    line = straight.__code__.co_firstlineno
    assert f"# line {line + 1}" in text.splitlines()[1]
    assert text == print_function(lower(straight, [T.AType("array", 1, "float64"),
                                                   T.INT])[0])


def test_lowering_keeps_names_lines_and_types():
    ir, _ = lower(straight, [T.AType("array", 1, "float32"), T.INT])
    ops = [op for op in ir.body.ops if op.prim != "const"]
    assert [op.prim for op in ops] == ["sin", "multiply", "add", "sum"]
    assert ops[1].out.name == "y" and ops[2].out.name == "y"
    assert ops[0].line == straight.__code__.co_firstlineno + 1
    assert ops[1].out.type == T.AType("array", 1, "float32")
    assert ops[3].out.type.kind == "scalar"


def _function(ops, params, results):
    return Function("f", params, Block(ops=ops, results=results))


def test_verifier_accepts_lowered_and_cloned_functions():
    ir, _ = lower(straight, None)
    verify(ir)
    copy, mapping = clone_function(ir)
    verify(copy)
    assert all(mapping[p] is not p for p in ir.params)


def test_verifier_rejects_use_before_definition():
    x = Value("x")
    late = Value()
    use = Op("sin", {"x": late}, [Value()])
    define = Op("cos", {"x": x}, [late])
    with pytest.raises(IRError, match="before its definition"):
        verify(_function([use, define], [x], [use.out]))


def test_verifier_rejects_double_definition():
    x = Value("x")
    op = Op("sin", {"x": x}, [Value()])
    with pytest.raises(IRError, match="defined twice"):
        verify(_function([op, op], [x], [op.out]))


def test_verifier_enforces_region_scoping():
    x = Value("x")
    inner = Op("sin", {"x": x}, [Value()])
    region = Block(ops=[inner], results=[inner.out])
    holder = Op("if", {"cond": x}, [Value()], regions=[region])
    after = Op("cos", {"x": inner.out}, [Value()])  # reads a value local to the region
    with pytest.raises(IRError, match="before its definition"):
        verify(_function([holder, after], [x], [after.out]))
    verify(_function([holder], [x], [holder.out]))


def test_verifier_rejects_undefined_result_and_broken_back_pointer():
    x = Value("x")
    with pytest.raises(IRError, match="result"):
        verify(_function([], [x], [Value()]))
    op = Op("sin", {"x": x}, [Value()])
    op.out.op = None
    with pytest.raises(IRError, match="point back"):
        verify(_function([op], [x], [op.out]))


def test_builder_shares_constants_and_stamps_lines():
    block = Block()
    with Builder(block, line=7) as b:
        c1, c2 = b.const(2.0), b.const(2.0)
        c3 = b.const(2)
        op = b.emit("sin", {"x": c1})
    assert c1 is c2 and c3 is not c1
    assert op.line == 7 and op.out.line == 7


def test_abstract_types_parse_and_print():
    assert T.parse("float") == T.FLOAT
    assert T.parse("array[2]") == T.AType("array", 2, "float64")
    assert str(T.parse("array[1,float32]")) == "array[1,float32]"
    assert T.parse("np.float32") == T.AType("scalar", 0, "float32")
    assert T.parse("other") == T.ANY
    with pytest.raises(ValueError, match="bad argument kind"):
        T.parse("matrix")
