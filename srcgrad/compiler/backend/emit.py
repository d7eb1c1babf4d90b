"""Backend: optimised IR -> gast -> Python source (via astor), one statement per op.

Operators print as operators (``x * 3``), primitives as the NumPy function they are
(``np.sin(x)``; ``math.sin(x)`` where every input is known to be a Python float), helper
primitives by an imported name (``unbroadcast(...)``), constants inline. A ``# line N:
<source>`` comment precedes each run of statements that came from user line N::

    def grad_f(x):
        # line 2: return np.sin(x * 3).sum()
        _t1 = x * 3
        ...
        return dx
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gast

from ..ir.core import Block, Function, Op, Value, checkpoint_mark, const_value
from ..passes.blocks import popped_items
from ..support import update_if_fits
from . import breaks, conditions, control, floats, frees, inplace
from .buffered import TapeBuffers
from .expressions import Expressions
from .expressions import call_node as _call
from .name_reuse import NameReuse
from .names import References, ValueNames
from .nesting import all_reads, nesting_plan, read_positions
from .printing import source as _source
from .slots import direct_results
from .syntax import LOAD, dotted, load


@dataclass
class Emitted:
    """One emitted function: its text (without imports) and what it needs."""

    name: str
    lines: list[str]
    refs: References = field(default_factory=References)


def emit_function(fn: Function, refs: References | None = None) -> Emitted:
    refs = refs or References()
    em = _Emitter(breaks.native_breaks(fn), refs)
    return Emitted(em.fn_name, em.run(), refs)


def module_text(functions: list[Emitted]) -> str:
    """A self-contained module: imports, then every function."""
    refs = References()
    for f in functions:
        refs.merge(f.refs)
    header = refs.header()
    parts = ["\n".join(header)] if header else []
    parts += ["\n".join(f.lines) for f in functions]
    return "\n\n\n".join(parts) + "\n"


def build(tree: Any, leaves: list[Any], make_tuple: Any, make_list: Any = None) -> Any:
    """Nest ``leaves`` as ``tree`` says (an int picks a leaf, a list makes a tuple,
    ``("list", trees)`` makes a list: with ``make_list``, else a tuple too)."""
    if isinstance(tree, list):
        return make_tuple([build(t, leaves, make_tuple, make_list) for t in tree])
    if isinstance(tree, tuple):
        items = [build(t, leaves, make_tuple, make_list) for t in tree[1]]
        return (make_list or make_tuple)(items)
    return leaves[tree]


def _assign(target: str, value: Any) -> Any:
    return gast.Assign(targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None,
                                          type_comment=None)], value=value, type_comment=None)


def _last_reads(block: Block, appended: list[Value], plan: dict[int, int]) -> dict[int, int]:
    """Value id -> index of the last op of ``block`` reading it (results: past the end; a
    nested op's reads: at its statement, see :mod:`.nesting`)."""
    last: dict[int, int] = {}
    for i, v in read_positions(block, plan):
        last[v.id] = max(i, last.get(v.id, i))
    for v in [*block.results, *appended]:
        if isinstance(v, Value):
            last[v.id] = len(block.ops)
    return last




class _Emitter(Expressions, NameReuse):
    def __init__(self, fn: Function, refs: References) -> None:
        self.fn = fn
        self.refs = refs
        self.names = ValueNames({"np", "math", *refs.used_names}, refs.used_names)
        refs.value_names = self.names.used
        self.fn_name = fn.name
        self.plan = nesting_plan(fn)
        self.plan.update(conditions.test_plan(fn))  # loop tests as one expression
        self.break_tests = conditions.break_tests(fn, self.plan)
        self.last_use = self._last_uses()
        self.dying = frees.dying_by_statement(fn, self.last_use)
        self.popped = popped_items(fn)  # (what a loop body may free: frees.dying_in_body)
        self.block_state: tuple[Block, dict[int, int]] = (fn.body, {})
        self.fresh_params: set[int] = set()  # loop-carried arrays safe to write in place
        self.inline: dict[int, Any] = {}  # value id -> the expression written in its place
        self.retested = control.retested_conditions(fn)
        self.slot_of: dict[int, str] = {}  # value id -> the loop slot it is computed into
        self.loop_slots: list[list[str]] = []  # per enclosing loop, its slots' names
        # (an optimised function's loops may tape into kept buffers: buffered.py)
        self.tape_buffers = TapeBuffers(fn, refs, bool(fn.meta.get("tape_buffers")))

    def _last_uses(self) -> dict[int, int]:
        """Top-level value id -> index of its last top-level use (uses in regions count
        at their op), so a name is never rebound while a later loop still reads it."""
        last: dict[int, int] = {}
        for i, v in read_positions(self.fn.body, self.plan):
            last[v.id] = max(i, last.get(v.id, i))
        for r in self.fn.body.results:
            last[r.id] = len(self.fn.body.ops) + 1
        return last

    def run(self) -> list[str]:
        params = [self.names.define(p) for p in self.fn.params]
        lines = [f"def {self.fn_name}({', '.join(params)}):"]
        lines += self.tape_buffers.prologue(self.names, "    ")  # (named after the params)
        self.current_line: int | None = None
        self.noted: set[int] = set()  # lines whose compile-time note was shown
        self.recomputed: set[int] = set()  # checkpointed calls whose copy was announced
        self.block(self.fn.body, lines, "    ", top=True)
        # what was evaluated while compiling and left no code after the last line shown
        for start, (_end, why) in sorted(self.fn.notes.items()):
            if start not in self.noted:
                text = self.fn.source_lines.get(start, "").strip()
                lines.append(f"    # line {start}: {text}  ({why})")
        lines += self.tape_buffers.epilogue("    ")
        lines.append("    " + _source(gast.Return(value=self.results())))
        return lines

    def line_comments(self, line: int, indent: str) -> list[str]:
        """The ``# line N: ...`` comment(s) before the code from user line ``line``: first,
        once each, the statements up to it that the frontend evaluated while compiling (an
        unrolled loop, a folded ``if``, also one that left no code), their reason after the
        text."""
        out, own = [], False
        for start, (_end, why) in sorted(self.fn.notes.items()):
            if start <= line and start not in self.noted:
                self.noted.add(start)
                text = self.fn.source_lines.get(start, "").strip()
                out.append(f"{indent}# line {start}: {text}  ({why})")
                own = own or start == line
        if not own:
            text = self.fn.source_lines.get(line, "").strip()
            out.append(f"{indent}# line {line}: {text}".rstrip())
        return out

    def block(self, block: Block, lines: list[str], indent: str, *, top: bool = False,
              slots: list[str] | None = None, carried: list[Value] | None = None,
              appends: list[str] | None = None, empty_ok: bool = False,
              loop_body: bool = False) -> None:
        """Emit ``block``'s ops; then assign its results to ``slots`` (region outputs;
        ``carried``: the block parameters holding the slots' previous values) and append
        the remaining results to the lists named ``appends`` (a loop's collected lists).
        An empty block is a ``pass`` unless ``empty_ok`` (statements follow it). The
        function's block and a loop's body free their dead arrays (:mod:`.frees`)."""
        start = len(lines)
        slots = slots or []
        appended = block.results[len(slots):] if appends else []
        direct = direct_results(block, slots, carried, appended, self.plan) if slots else {}
        self.slot_of.update(direct)  # (an ``if`` among them names its outputs so)
        saved = self.block_state
        self.block_state = (block, _last_reads(block, appended, self.plan))
        dying = self.dying if top else frees.dying_in_body(
            block, self.block_state[1], self.fn, self.popped) if loop_body else {}
        deferred: list[int] = []  # ops whose dying arrays are not freed yet
        for i, op in enumerate(block.ops):
            if dying and i:
                deferred.append(i - 1)
                if self.written(block.ops[i - 1]):
                    # (after a statement: an op written inside a later one, a literal or an
                    # inlined transpose read by the next statement frees nothing yet)
                    for j in deferred:
                        self.free(dying.get(j, []), lines, indent)
                    deferred = []
            if op.prim == "const" or (len(op.outputs) == 1 and op.out.id in self.plan):
                continue  # a literal, or written inside the expression that reads it
            if op.line is not None and op.line != self.current_line:
                lines += self.line_comments(op.line, indent)
                self.current_line = op.line
            mark = checkpoint_mark(op)
            if mark is not None and mark[0] == "recompute" and mark[1] not in self.recomputed:
                self.recomputed.add(mark[1])
                lines.append(f"{indent}# sg.checkpoint({mark[2]}): recomputed for its adjoint; "
                             "the forward pass kept only its arguments")
            if op.regions or op.prim in control.TAPE_PRIMS or op.prim == breaks.BREAK:
                control.emit_compound(self, op, lines, indent, i if top else None)
                continue
            if top and self._inline_transpose(block, i):
                continue
            stmt = self.statement(op, i if top else None, direct)
            if stmt is not None:
                lines += [indent + s for s in _source(stmt).split("\n")]
        for name, value in zip(appends or [], appended):
            lines.append(f"{indent}{name}.append({self.source_of(self.expr(value))})")
        if slots:  # the remaining results, assigned in parallel (a, b = b, a)
            self.assign_slots([(name, r) for r, name in zip(block.results, slots)
                               if direct.get(r.id) != name], lines, indent)
        if len(lines) == start and not empty_ok:
            lines.append(indent + "pass")
        self.block_state = saved

    def assign_slots(self, pairs: list[tuple[str, Value]], lines: list[str],
                     indent: str) -> None:
        """``name, ... = value, ...`` in parallel for each slot not already holding its
        value (a loop's carried slots, a branch's results, a ``break``'s exit values)."""
        targets, values = [], []
        for name, v in pairs:
            value = self.expr(v)
            if isinstance(value, gast.Name) and value.id == name:
                continue
            targets.append(name)
            values.append(self.source_of(value))
        if targets:
            lines.append(f"{indent}{', '.join(targets)} = {', '.join(values)}")

    @staticmethod
    def source_of(node: Any) -> str:
        if isinstance(node, gast.Constant):
            return repr(node.value)
        return _source(node)

    def results(self) -> Any:
        vals = [self.expr(r) for r in self.fn.body.results]
        return build(self.fn.meta.get("returns", 0), vals,
                     lambda items: gast.Tuple(elts=items, ctx=LOAD),
                     lambda items: gast.List(elts=items, ctx=LOAD))

    # --- statements ------------------------------------------------------------------
    def statement(self, op: Op, index: int | None, direct: dict[int, str]) -> Any:
        if op.prim == "print":
            kw = {k: self.literal(v) for k, v in op.attrs.get("kwargs", {}).items()}
            return gast.Expr(value=_call(load("print"), [self.expr(v) for v in
                                                           op.args["items"]], kw))
        if op.prim == "assert":
            msg = op.attrs.get("msg")
            return gast.Assert(test=self.expr(op.args["test"]),
                               msg=None if msg is None else self.literal(msg))
        if op.prim == "raise":
            exc = _call(dotted(self.refs.ref(op.attrs["exc"])),
                        [self.literal(a) for a in op.attrs["args"]])
            return gast.Raise(exc=exc, cause=None)
        (out,) = op.outputs
        if op.prim == "setitem" and self.in_place(op, direct):
            target = self.names[op.args["x"]]
            self.names.define(out, target)
            return gast.Assign(targets=[gast.Subscript(
                value=load(target), slice=self.index_expr(op.args["index"]),
                ctx=gast.Store())], value=self.expr(op.args["values"]), type_comment=None)
        if op.prim in inplace.IN_PLACE_FORMS and self.in_place(op, direct):
            rule = op.attrs["rule"]
            target = self.names[op.args["x"]]  # (an accumulator: never written nested)
            self.names.define(out, target)
            write = _call(dotted(self.refs.ref(inplace.IN_PLACE_FORMS[op.prim])),
                          [self.expr(op.args[k]) for k in (*rule.inputs, *rule.params)])
            return _assign(target, write)
        reuse = direct.get(out.id)
        if reuse is None and index is not None:
            reuse = self.reusable_name(op, out, index)
        accumulator = op.args.get(op.attrs.get("accumulate", ""))
        dies = isinstance(accumulator, Value) and self._dies_at(accumulator, op, index)
        if dies and out.id not in direct and accumulator.id in self.names.names and (
                accumulator.adjoint_of is not None and self.names.family(out) is None
                or index is None and reuse is None and accumulator.adjoint_of is not None
                and out.adjoint_of is not None):
            # a temporary made from a cotangent that dies here (``ds / scale``) takes the
            # cotangent's buffer and name (``ds /= scale``) rather than a new array; in a
            # loop body, so does another adjoint made from it (``dp_1 -= ...``)
            reuse = self.names.names[accumulator.id]
        if dies and reuse is not None and reuse == self.names.names.get(accumulator.id):
            # the passes proved it a fresh, unaliased array of the result's shape and dtype
            other = op.args["y" if op.attrs["accumulate"] == "x" else "x"]
            self.names.define(out, reuse)
            if op.attrs.get("accumulate_checked"):  # (the shapes are checked as it runs)
                update = _call(dotted(self.refs.ref(update_if_fits)), [
                    dotted(self.refs.ref(op.attrs["rule"].impl)), load(reuse),
                    self.expr(other)])
                return _assign(reuse, update)
            return gast.AugAssign(target=gast.Name(id=reuse, ctx=gast.Store(),
                                                   annotation=None, type_comment=None),
                                  op=_AUGMENTED[op.prim](), value=self.expr(other))
        if op.prim in floats.STATEMENT_OPS:  # (a statement of two branches: see floats.py)
            return floats.root_quotient(self.names.define(out, reuse), op, self.expr, self.refs)
        buffered = None if floats.needs_guard(op) else self.tape_buffers.value(
            op, self.call_expr(op), self.expr)  # (None when not picked: buffered.py)
        if buffered is not None:  # (written into a buffer kept from the last call)
            return _assign(self.names.define(out, reuse), buffered)
        value = self.call_expr(op)
        target = self.names.define(out, reuse)
        if floats.needs_guard(op):  # a fast Python spelling of a NumPy-semantics op
            return floats.guard(_assign(target, value), target,
                                self.rule_call(op, numpy=True), op, self.refs)
        return _assign(target, value)

    def _dies_at(self, v: Value, op: Op, index: int | None) -> bool:
        """``v`` is read last by ``op``: top-level statement ``index``, or in a loop or
        branch body (a loop's carried value too: the slot then takes the result)."""
        if index is not None:
            return self.last_use.get(v.id) == index
        block, last = self.block_state
        return any(o is op for o in block.ops) and last.get(v.id) == block.ops.index(op)

    def written(self, op: Op) -> bool:
        """``op`` was emitted as a statement of its own."""
        if op.prim == "const":
            return False
        return not (len(op.outputs) == 1 and (op.out.id in self.plan
                                              or op.out.id in self.inline))

    def free(self, values: list[Value], lines: list[str], indent: str) -> None:
        """``del`` the names still holding ``values``, arrays a statement read last."""
        names = frees.deletable(values, self.names.names, self.names.holder)
        if names:
            lines.append(f"{indent}del {', '.join(names)}")

    def in_place(self, op: Op, direct: dict[int, str]) -> bool:
        block, last_read = self.block_state
        index = block.ops.index(op)
        x = op.args["x"]
        wanted = direct.get(op.out.id)
        if wanted is not None and wanted != self.names.names.get(x.id):
            return False  # the result must land in another slot
        return inplace.can_write_in_place(op, index, block, last_read, self.fresh_params,
                                          self.fn.params)

    def _inline_transpose(self, block: Block, i: int) -> bool:
        """``np.transpose(a)`` read once, by the next op, is written inside it (``a.T @ g``
        as by hand): no name holds the view, so ``a`` can be freed when it dies."""
        op = block.ops[i]
        if op.prim != "transpose" or const_value(op.args.get("axes")) != (True, None):
            return False
        nxt = next((o for o in block.ops[i + 1:] if o.prim != "const"), None)
        if nxt is None or nxt.regions or nxt.prim in control.TAPE_PRIMS:
            return False
        reads = sum(1 for o in block.ops for v in all_reads(o) if v is op.out)
        reads += sum(1 for r in block.results if r is op.out)
        if reads != 1 or op.out not in list(nxt.operands()):
            return False
        self.inline[op.out.id] = self.call_expr(op)
        return True


# the augmented assignment of each op the accumulate pass may mark (``dp -= t``)
_AUGMENTED = {"add": gast.Add, "subtract": gast.Sub, "multiply": gast.Mult, "divide": gast.Div}
