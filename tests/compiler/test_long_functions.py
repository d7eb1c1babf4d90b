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


def _count_calls(monkeypatch, module, name):
    count = {"n": 0}
    original = getattr(module, name)

    def counting(*args, **kwargs):
        count["n"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return count


def test_one_number_questions_grow_linearly_with_the_length(tmp_path, monkeypatch):
    # accumulate_in_place, loop_sums and shapes_without_values asked rank0 without the
    # answers of the walk that made their shape classes: the chain walked again per
    # candidate (200 lines: 2 million lookups, 3.7 s of a 5.6 s compile)
    from srcgrad.compiler.passes import shape_facts

    counts = []
    for n in (40, 80):
        name = f"straight_rank0_{n}"
        module = load_module(tmp_path, name, straight_line(n))
        try:
            count = _count_calls(monkeypatch, shape_facts, "_rank0_alone")
            sg.clear_cache()
            sg.grad(module.f)(np.linspace(0.1, 0.9, 4), np.linspace(-0.3, 0.4, 4))
            counts.append(count["n"])
            monkeypatch.undo()
        finally:
            sys.modules.pop(name, None)
    assert counts[1] < 3 * counts[0], counts  # (about 2x per doubling; it was 4x)
    sg.clear_cache()


def _plain_scan_plan(fn):
    """The nesting plan by the plain scan (each statement scanned back over every op down
    to the earliest one its tree reads): what backend/nesting.py's candidate scan gives."""
    from srcgrad.compiler.backend import nesting as N

    reads = N._count_reads(fn.body, {})
    plan = {}

    def block(b):
        ops = b.ops
        reader_of = {v.id: op for op in ops for v in op.operands()}
        results = {v.id for v in b.results if isinstance(v, Value)}
        slot_of = N._slots(b)
        size = {}
        defined_at = {o.id: i for i, op in enumerate(ops) for o in op.outputs}
        in_place = N._updates_in_place(b, reads, results)
        for j, statement in enumerate(ops):
            for region in statement.regions:
                block(region)
            if not (N._can_read_nested(statement) or N._tests_nested(statement)):
                continue
            tree, total, adjacent, passed = {id(statement)}, 1, True, set()
            lowest = N._earliest(N.all_reads(statement), defined_at, j)
            for k in range(j - 1, -1, -1):
                op = ops[k]
                if k < lowest or op.prim in N._BARRIERS or op.regions:
                    break
                if op.prim == "const":
                    continue
                reader = reader_of.get(op.out.id) if len(op.outputs) == 1 else None
                if reader is not None and id(reader) in tree and op.out.id in plan:
                    tree.add(id(op))
                    lowest = N._earliest(op.operands(), defined_at, lowest)
                    continue
                if (reader is not None and id(reader) in tree
                        and N._nestable(op, reads, results, in_place)
                        and not N._accumulator_of(op.out, reader, in_place)
                        and not N._written_into(op.out, reader)
                        and (op.line == statement.line or N._a_later_lines_part(op, statement))
                        and total + size.get(id(op), 1) <= N.MAX_NESTED + 1
                        and (adjacent or N._numbers_only(op))
                        and not (passed and N._reads_params(op, passed, plan))):
                    plan[op.out.id] = id(reader)
                    tree.add(id(op))
                    lowest = N._earliest(op.operands(), defined_at, lowest)
                    total += size.get(id(op), 1)
                    continue
                adjacent = False
                for o in op.outputs:
                    passed |= slot_of.get(o.id, set())
            size[id(statement)] = total

    block(fn.body)
    return plan


def test_the_nesting_plan_is_the_plain_scans(tmp_path, monkeypatch):
    from srcgrad.compiler.backend import emit
    from tests.compiler.loop_programs import euler_on_two_floats, newton

    compared = []
    original = emit.nesting_plan

    def both(fn):
        plan = original(fn)
        assert plan == _plain_scan_plan(fn)
        compared.append(len(plan))
        return plan

    monkeypatch.setattr(emit, "nesting_plan", both)
    module = load_module(tmp_path, "straight_nesting_60", straight_line(60))
    try:
        sg.clear_cache()
        sg.grad(module.f)(np.linspace(0.1, 0.9, 4), np.linspace(-0.3, 0.4, 4))
        sg.grad(newton)(2.0)
        sg.jvp(newton)(2.0, 1.0)
        sg.grad(euler_on_two_floats, wrt=(0, 1))(np.array([9.8, 0.2]), np.array([0.3, 0.1]), 20)
        sg.hessian(newton)(2.0)
    finally:
        sys.modules.pop("straight_nesting_60", None)
        sg.clear_cache()
    assert len(compared) >= 5 and sum(compared) > 50, compared
