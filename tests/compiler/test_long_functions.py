"""Long straight-line functions compile, in time about linear in their length: the shape
classes' test of "one number" (``shape_facts.rank0``) walked an elementwise chain again for
each op, recursively, without remembering what it had decided (a 50-line function took
3 s; at 100 lines it hit Python's recursion limit), and in-place accumulation scanned the
whole block per candidate (``accumulate._readers``)."""

import sys

import numpy as np

import srcgrad as sg
from srcgrad.compiler.ir.builder import Builder
from srcgrad.compiler.ir.core import Block, Value
from srcgrad.compiler.ir.types import AType
from srcgrad.compiler.passes.shape_facts import rank0
from srcgrad.rules import RULES
from tests.compiler.user_modules import load_module
from tests.fd import assert_close

LINES = (
    "v{i} = np.sin({a}) * {b} + 0.5",
    "v{i} = {a} * {b} - np.tanh({a})",
    "v{i} = np.exp(-{a} * {a}) + {b} / (1.0 + {b} * {b})",
    "v{i} = np.maximum({a}, {b}) - 0.1 * {a}",
)


def straight_line(n: int) -> str:
    body = []
    for i in range(n):
        a = "x" if i == 0 else f"v{i - 1}"
        b = "w" if i < 2 else f"v{i - 2}"
        body.append("    " + LINES[i % len(LINES)].format(i=i, a=a, b=b))
    return ("import numpy as np\n\n\ndef f(x, w):\n" + "\n".join(body)
            + f"\n    return np.sum(v{n - 1})\n")


def test_a_150_line_function_compiles_and_is_right(tmp_path):
    module = load_module(tmp_path, "straight_150", straight_line(150))
    try:
        x, w = np.linspace(0.1, 0.9, 4), np.linspace(-0.3, 0.4, 4)
        got = sg.grad(module.f)(x, w)
        # (the chain is ill-conditioned for finite differences: the literal print of the
        # derivative is the reference)
        assert_close(got, sg.grad(module.f, optimize=False)(x, w), rtol=1e-9, atol=0)
    finally:
        sys.modules.pop("straight_150", None)


def test_rank0_of_a_deep_chain_read_twice_per_op():
    # each value read twice by the next (v = v * v): 3000 ops, far past the recursion limit
    builder = Builder(Block())
    v = Value(name="x", type=AType("array", 1, "float64"))
    s = Value(name="c", type=AType("float", None, None))
    for _ in range(3000):
        v = builder.emit("multiply", {"x": v, "y": v}, attrs={"rule": RULES["multiply"]}).out
        s = builder.emit("multiply", {"x": s, "y": s}, attrs={"rule": RULES["multiply"]}).out
    assert rank0(v) is False  # (untyped ops of an array: not a number)
    assert rank0(s) is True  # (untyped ops of numbers only: a number)
