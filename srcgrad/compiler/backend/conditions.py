"""Backend: a ``while`` loop's test written once per trip, as the user wrote it.

The frontend lowers ``a and b`` to an ``if`` whose result is ``a`` itself when ``a`` is
false (``b`` when it is true), and ``a or b`` to the mirror image: Python's own semantics,
in IR that has no short-circuit operator. Printed literally inside a loop's test block,
that gives

    while True:                         while abs(d) >= 1e-10 and n < 50:
        _t1 = abs(d) >= 1e-10               ...
        if _t1:
            _t2 = n < 50           ->
        else:
            _t2 = _t1
        if not _t2:
            break

where the literal form tests the false ``a`` twice on the last trip (``if _t1``, then
``if not _t2``: on a lazy Dask value each test is a compute) and costs a jump, a store and
a load per trip. Two forms replace it, both testing each operand at most once per trip:

- :func:`test_plan`: when every op of the test is pure and read once, the whole test is one
  expression, an ``and``/``or`` where the IR has such an ``if`` (the emitter writes the
  test's values nested: :meth:`~.emit._Emitter.call_expr` prints the ``if``);
- :func:`break_tests`: otherwise (a value the test reads twice, an opaque call), the test
  block keeps its statements but each such ``if`` becomes a ``break`` on its operand
  (``if not _t1: break``; then ``b``'s statements and ``if not _t2: break``), emitted by
  :func:`emit_break_test`.

Python's ``while a and b:`` calls ``bool`` once on ``a`` and, if it is true, once on
``b``: the same tests the user's loop makes.
"""

from __future__ import annotations

from typing import Any

import gast

from ..ir.core import Block, Function, Op, Value
from . import floats

# what a test may not hold to be written as one expression: effects, control flow and the
# tape (whose order matters), and ops the emitter always gives a statement of their own
_STATEMENTS = frozenset({"call", "print", "assert", "raise", "tape_new", "tape_push",
                         "tape_pop", "tape_len", "list_pop", "shape", "setitem", "captured"})


def short_circuit(op: Op) -> str | None:
    """``"and"`` / ``"or"`` when ``op`` is the ``if`` that ``a and b`` / ``a or b`` lowers
    to: one result, one branch yielding the tested value itself and computing nothing."""
    if op.prim != "if" or len(op.outputs) != 1 or len(op.regions) != 2:
        return None
    cond = op.args.get("cond")
    then, other = op.regions
    if _passes_through(other, cond) and not _passes_through(then, cond):
        return "and"
    if _passes_through(then, cond) and not _passes_through(other, cond):
        return "or"
    return None


def _passes_through(block: Block, cond: Any) -> bool:
    return (len(block.results) == 1 and block.results[0] is cond
            and all(o.prim == "const" for o in block.ops))


def computed_branch(op: Op) -> Block:
    """The branch of a short-circuit ``if`` that computes its second operand."""
    return op.regions[0] if short_circuit(op) == "and" else op.regions[1]


def expression(em: Any, op: Op) -> Any:
    """A short-circuit ``if`` as ``a and b`` (``a or b``), operands of one kind flattened
    as Python prints ``a and b and c``."""
    node = gast.And if short_circuit(op) == "and" else gast.Or
    values = []
    for v in (op.args["cond"], computed_branch(op).results[0]):
        part = em.expr(v)
        if isinstance(part, gast.BoolOp) and isinstance(part.op, node):
            values += part.values
        else:
            values.append(part)
    return gast.BoolOp(op=node(), values=values)


def test_plan(fn: Function) -> dict[int, int]:
    """Value id -> id of the op reading it, for every value of a ``while`` test that can be
    written as one expression (all of that test's values, or none of them)."""
    counts = fn.body.use_counts()
    plan: dict[int, int] = {}
    for op in fn.body.walk():
        if op.prim != "while":
            continue
        test = op.regions[0]
        found: dict[int, int] = {}
        if len(test.results) == 1 and _expressible(test, counts, found, op):
            plan.update(found)
    return plan


def _expressible(block: Block, counts: dict[int, int], found: dict[int, int],
                 owner: Op) -> bool:
    """Whether every op of ``block`` can be written nested in the one expression of its
    result; records each value's reader in ``found`` (``owner`` reads the results)."""
    reader = {v.id: op for op in block.ops for v in op.operands()}
    # the value an ``and``/``or`` tests is read twice in the IR (tested, and yielded as
    # the result when it decides), once in the expression
    tested = {op.args["cond"].id for op in block.ops if short_circuit(op) is not None}
    for op in block.ops:
        if op.prim == "const":
            continue
        if len(op.outputs) != 1 or "accumulate" in op.attrs \
                or counts.get(op.out.id, 0) != 1 + (op.out.id in tested):
            return False
        if short_circuit(op) is not None:
            if not _expressible(computed_branch(op), counts, found, op):
                return False
        elif op.regions or op.prim in _STATEMENTS or op.prim in floats.STATEMENT_OPS \
                or floats.needs_guard(op):
            return False
        found[op.out.id] = id(reader.get(op.out.id, owner))
    return True


def break_tests(fn: Function, plan: dict[int, int]) -> set[int]:
    """Ids of the short-circuit ``if`` ops that end a ``while`` test (or the computed branch
    of another such ``if``) whose test is not written as one expression (not in ``plan``):
    each is emitted as a ``break`` on its operands."""
    counts = fn.body.use_counts()
    found: set[int] = set()
    for op in fn.body.walk():
        if op.prim == "while" and not written_as_expression(op.regions[0], plan):
            _chain(op.regions[0], counts, found)
    return found


def _chain(block: Block, counts: dict[int, int], found: set[int]) -> None:
    last = _last_op(block)
    if last is None or len(block.results) != 1 or block.results[0] is not last.out \
            or short_circuit(last) is None or counts.get(last.out.id, 0) != 1:
        return
    found.add(id(last))
    _chain(computed_branch(last), counts, found)


def written_as_expression(test: Block, plan: dict[int, int]) -> bool:
    """Whether the emitter writes the loop test ``test`` as one expression (every op of it
    nested, or none but constants)."""
    return all(o.prim == "const" or (len(o.outputs) == 1 and o.out.id in plan)
               for o in test.ops)


def _last_op(block: Block) -> Op | None:
    ops = [o for o in block.ops if o.prim != "const"]
    return ops[-1] if ops else None


def ends_in_break(block: Block, chain: set[int]) -> bool:
    """Whether ``block``'s result is tested by a break chain already emitted."""
    last = _last_op(block)
    return last is not None and id(last) in chain and block.results[0] is last.out


def bare(text: str) -> str:
    """``text`` without the parentheses astor puts around a whole test expression."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return text[1:-1] if i == len(text) - 1 else text
    return text


def emit_break_test(em: Any, op: Op, lines: list[str], indent: str) -> None:
    """``op`` (in :func:`break_tests`) as breaks: ``a and b`` leaves the loop when ``a`` is
    false, else computes ``b`` and leaves when it is false; ``a or b`` computes and tests
    ``b`` only when ``a`` is false."""
    test = em.source_of(em.expr(op.args["cond"]))
    branch = computed_branch(op)
    if short_circuit(op) == "and":
        lines.append(f"{indent}if not {test}:")
        lines.append(f"{indent}    break")
        inner = indent
    else:
        lines.append(f"{indent}if not {test}:")
        inner = indent + "    "
    em.block(branch, lines, inner, empty_ok=True)
    if not ends_in_break(branch, em.break_tests):
        result: Value = branch.results[0]
        lines.append(f"{inner}if not {em.source_of(em.expr(result))}:")
        lines.append(f"{inner}    break")
