"""Lowering ``for`` and ``while``.

``outputs = for_range(start, stop, step, init) {^(i, carried...) body}``; iterating an
array's rows, ``enumerate`` and ``zip`` are ranges with subscripts inside.
``outputs = while(init) {^(carried...) cond} {^(carried...) body}``. Which loops are
unrolled (or their first trips peeled) instead is :mod:`.policy`'s decision; a body's
``break``/``continue``/``return`` become flags the loop carries (:mod:`.loop_exits`).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import gast
import numpy as np

from ..ir import types as T
from ..ir.core import Block, Op, Value
from ..symbolic import Sym, is_symbolic, to_value
from . import loop_exits
from .branches import lower_lazy_if
from .control import (
    Collector,
    LoopExit,
    RunList,
    SymEnumerate,
    SymRange,
    SymZip,
    assigned_names,
    contains,
    describe_shape,
    exits_in,
    flatten,
    in_block,
    join_types,
    leaf_count,
    mutated_lists,
    unflatten,
)
from .policy import MAX_UNROLL, POLICY, Decision
from .unbound import UNBOUND, MaybeUnbound, is_unbound_value

if TYPE_CHECKING:
    from .lower import Lowerer


def lower_for(lw: Lowerer, node: Any) -> None:
    if node.orelse:
        raise lw.err(node, "`for ... else` is not supported.", "Use a flag variable.")
    iterable = lw.expr(node.iter)
    decision = POLICY.should_unroll_for(
        iterable, isinstance(iterable, range) and bool(mutated_lists(lw, node.body)))
    if decision:
        _unroll(lw, node, decision)
        return
    if isinstance(iterable, (np.ndarray, Sym)):
        iterable = _array_rows(lw, iterable, node)
    bounds, item_of = _iteration(lw, iterable, node)
    flags = loop_exits.make_flags(lw, node.body)
    carried, init = _carried(lw, node, assigned_names([node.target]))
    carried += loop_exits.carried_flags(flags)
    init += [lw.env[n] for n in loop_exits.carried_flags(flags)]

    def body(env: dict[str, Any], index: Any) -> None:
        lw.assign(node.target, item_of(index), node)
        loop_exits.iteration(lw, node, flags)

    with lw.ctx.builder.at_line(lw.line_of(node)):
        start, stop, step = (to_value(b) for b in bounds)
    outs = _emit_loop(lw, node, "for_range", {"start": start, "stop": stop, "step": step},
                      carried, init, body)
    loop_exits.finish(lw, carried, outs, flags)


def _carried(lw: Lowerer, node: Any, targets: list[str]) -> tuple[list[str], list[Any]]:
    """The names a run-time loop carries, and their values before it: those the body
    assigns that exist before the loop, and those read after it (the loop variable, a
    name first assigned in the body: maybe unbound, as the loop may run zero times)."""
    carried, init = [], []
    for n in dict.fromkeys([*targets, *assigned_names(node.body)]):
        if n in lw.env and (n not in targets or _read_after(lw, node, n)):
            carried.append(n)
            init.append(lw.env[n])
        elif n not in lw.env and _read_after(lw, node, n):
            carried.append(n)
            init.append(MaybeUnbound(UNBOUND))
    return carried, init


def _read_after(lw: Lowerer, loop: Any, name: str) -> bool:
    """Whether the function may read ``name`` after ``loop`` (inside an enclosing loop:
    anywhere, as the next iteration may read it before this loop)."""
    end = (loop.end_lineno, loop.end_col_offset)
    anywhere = bool(lw.ctx.loop_flags)
    for n in gast.walk(lw.parsed.node):
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and (
                anywhere or (n.lineno, n.col_offset) >= end):
            return True
    return False



def _array_rows(lw: Lowerer, array: Any, node: Any) -> Any:
    """An array looped over, row by row at run time. A compile-time array (made in the
    function from constants) becomes an IR constant; a 0-d one is refused here, as Python
    would refuse it when the loop runs."""
    t = array.value.type if isinstance(array, Sym) else None
    ndim = array.ndim if isinstance(array, np.ndarray) else t.known_ndim if t else None
    if ndim == 0:
        raise lw.err(node, "cannot loop over a 0-d array.",
                     "Loop over an array with at least one axis.")
    if isinstance(array, Sym):
        return array
    with lw.ctx.builder.at_line(lw.line_of(node)):
        return Sym(to_value(array))


def _unroll(lw: Lowerer, node: Any, decision: Decision) -> None:
    items = decision.items
    if POLICY.too_long(len(items)):
        raise lw.err(node, f"a loop of {len(items)} iterations over a Python list is too long "
                     "to unroll.", "Loop over an array instead.")
    lw.note(node, POLICY.unroll_note(decision))
    for item in items:
        lw.assign(node.target, item, node)
        if _unrolled_iteration(lw, node.body):
            break


def _unrolled_iteration(lw: Lowerer, body: list[Any]) -> bool:
    """Lower one compile-time iteration of a loop ``body``; True if it ended in ``break``."""
    lw.ctx.loop_flags.append(None)  # no run-time flag: break/continue unwind as LoopExit
    try:
        for stmt in body:
            lw.stmt(stmt)
    except LoopExit as e:
        return e.kind == "break"
    finally:
        lw.ctx.loop_flags.pop()
    return False


def _iteration(lw: Lowerer, iterable: Any, node: Any) -> tuple[tuple[Any, Any, Any], Any]:
    """(start, stop, step) and ``item_of(index)`` for a run-time iteration."""
    if isinstance(iterable, range):
        return (iterable.start, iterable.stop, iterable.step), lambda i: i
    if isinstance(iterable, SymRange):
        return (iterable.start, iterable.stop, iterable.step), lambda i: i
    if isinstance(iterable, Sym):
        length = lw.builtin_len(iterable, node)
        return (0, length, 1), lambda i: iterable[i]
    if isinstance(iterable, SymEnumerate):
        bounds, inner = _iteration(lw, iterable.inner, node)
        first, _, step = bounds
        start = iterable.start

        def count(i: Any) -> Any:  # how many items came before, plus enumerate's start
            n = i if (first, step) == (0, 1) else lw.binop(
                operator.floordiv, lw.binop(operator.sub, i, first, node), step, node)
            return n if not isinstance(start, Sym) and start == 0 else n + start

        return bounds, lambda i: (count(i), inner(i))
    if isinstance(iterable, SymZip):
        parts = [_iteration(lw, it, node) for it in iterable.items]
        stop = parts[0][0][1]
        for (_start, other, _step), _ in parts[1:]:
            stop = lw.builtin_min(stop, other, node)
        if any(p[0][0] != 0 or p[0][2] != 1 for p in parts):
            raise lw.err(node, "zip over ranges with a start or step is not supported.")
        return (0, stop, 1), lambda i: tuple(item(i) for _, item in parts)
    # a frontend stand-in (a list built at run time) says what it stands for
    what = getattr(type(iterable), "srcgrad_unpassable", None) or \
        f"a {type(iterable).__name__}"
    raise lw.err(node, f"cannot loop over {what} here.",
                 "Loop over range(...), an array, enumerate(...) or zip(...).")


def _emit_loop(lw: Lowerer, node: Any, prim: str, args: dict[str, Any], carried: list[str],
               init: list[Any], body_fn: Any, cond_expr: Any = None) -> list[Any]:
    """Lower a loop body (and condition), joining carried types until they settle; the
    carried values after the loop.

    A carried tuple or list is carried item by item (its shape must stay the same).
    Lists the body appends to (empty before the loop) are *collected*: the body yields the
    appended value as an extra result and the op an extra output, the list at run time.
    """
    lists = _collected_lists(lw, node)
    slots = _Slots(carried, init)
    with lw.ctx.builder.at_line(lw.line_of(node)):
        init_values = [to_value(v) for v in slots.leaves]
    # a slot that starts unbound takes its type from the body
    types: list[Any] = [None if is_unbound_value(v) else v.type or T.ANY
                        for v in init_values]
    for _attempt in range(4):
        regions, result_types = _loop_regions(lw, node, prim, slots, types, body_fn,
                                              cond_expr, lists)
        joined = [b if a is None else join_types(a, b) for a, b in zip(types, result_types)]
        if joined == types:
            break
        types = joined
    types = [t or T.ANY for t in types]
    op = lw.ctx.builder.emit(prim, {**args, "init": tuple(init_values)},
                             types=[*types, *[T.ANY] * len(lists)],
                             n_out=len(slots.names) + len(lists))
    op.regions = regions
    if lists:
        op.attrs["collect"] = len(lists)
    for n, out in zip([*slots.names, *lists], op.outputs):
        out.name = n
    for n, out in zip(lists, op.outputs[len(slots.names):]):
        lw.env[n] = RunList(Sym(out))
    return slots.rebuild([Sym(o) for o in op.outputs[:len(slots.names)]])


class _Slots:
    """The loop-carried variables as the op carries them: one slot per tuple/list item."""

    def __init__(self, carried: list[str], init: list[Any]) -> None:
        self.carried = carried
        self.shapes, self.leaves, self.names = [], [], []
        self.maybe = {n for n, value in zip(carried, init) if isinstance(value, MaybeUnbound)}
        self.fresh = {n for n, value in zip(carried, init)
                      if isinstance(value, MaybeUnbound) and value.value is UNBOUND}
        for n, value in zip(carried, init):
            leaves, shape = flatten(value.value if isinstance(value, MaybeUnbound) else value)
            self.shapes.append(shape)
            self.leaves += leaves
            self.names += [n] * len(leaves)

    def rebuild(self, leaves: list[Any]) -> list[Any]:
        """The value of each carried variable, from the values of its slots."""
        values, k = [], 0
        for name, shape in zip(self.carried, self.shapes):
            n = leaf_count(shape)
            value = unflatten(leaves[k:k + n], shape)
            values.append(MaybeUnbound(value) if name in self.maybe else value)
            k += n
        return values

    def results(self, lw: Lowerer, node: Any) -> list[Any]:
        """The slots' values at the end of an iteration (the names' current values)."""
        out = []
        for n, shape in zip(self.carried, self.shapes):
            value = lw.env[n] if n in lw.env else None
            if isinstance(value, MaybeUnbound):
                value = value.value
            leaves, now = flatten(value)
            if now != shape and n in self.fresh:
                raise lw.err(node, f"`{n}` is first assigned inside this loop, whose trip "
                             f"count is known only at run time, and read after it; it holds "
                             f"{_kind(now)} there, but only an array or a number can be "
                             "carried out of the loop that way.",
                             f"Assign `{n}` before the loop (with the same shape).")
            if now != shape:
                raise lw.err(node, f"`{n}` holds {_kind(shape)} before this loop and "
                             f"{_kind(now)} after an iteration; a loop whose trip count is "
                             "known only at run time must keep its shape.",
                             "Keep the same tuple or list shape, or collect the items with "
                             ".append and np.stack them after the loop.")
            out += leaves
        return out


def _kind(shape: Any) -> str:
    return "a single value" if shape is None else \
        f"a {shape[0]} of shape {describe_shape(shape)}"


def _collected_lists(lw: Lowerer, node: Any) -> list[str]:
    names = mutated_lists(lw, node.body)
    for n in names:
        if lw.env[n]:
            raise lw.err(node, f"the list `{n}` already holds items when this loop, whose trip "
                         "count is known only at run time, appends to it.",
                         f"Start from an empty list ({n} = []) right before the loop.")
    return list(dict.fromkeys(names))


def _loop_regions(lw: Lowerer, node: Any, prim: str, slots: _Slots, types: list[T.AType],
                  body_fn: Any, cond_expr: Any, lists: list[str]
                  ) -> tuple[list[Block], list[T.AType]]:

    def bind(params: list[Value]) -> dict[str, Any]:
        env = dict(lw.env)
        env.update(zip(slots.carried, slots.rebuild([Sym(p) for p in params])))
        return env

    regions = []
    if prim == "while":
        cond_block = Block(params=[Value(n, type=t) for n, t in zip(slots.names, types)])
        with in_block(lw, cond_block, bind(cond_block.params)):
            cond_block.results = [to_value(cond_expr())]
        regions.append(cond_block)
    body = Block(params=[Value(n, type=t) for n, t in zip(slots.names, types)])
    env = bind(body.params)
    index = None
    if prim == "for_range":
        index = Value("i", type=T.INT)
        body.params.insert(0, index)
    collectors = {n: Collector() for n in lists}
    env.update(collectors)
    with in_block(lw, body, env):
        body_fn(env, Sym(index) if index is not None else None)
        body.results = [to_value(v) for v in slots.results(lw, node)]
        for n, items in collectors.items():
            if len(items) != 1 or items.blocks[0] is not body:
                raise lw.err(node, f"`{n}.append(...)` must run exactly once per iteration of "
                             "a loop whose trip count is known only at run time (not inside "
                             "an `if` on a run-time condition).",
                             "Append unconditionally, or preallocate an array and write "
                             "y[i] = v.")
            body.results.append(to_value(items[0]))
    regions.append(body)
    return regions, [r.type or T.ANY for r in body.results[:len(slots.names)]]


# --- while ---------------------------------------------------------------------------------

def lower_while(lw: Lowerer, node: Any) -> None:
    if node.orelse:
        raise lw.err(node, "`while ... else` is not supported.", "Use a flag variable.")
    exits = bool(exits_in(node.body)) or contains(node.body, (gast.Return,))
    trips = 0
    for _ in range(MAX_UNROLL):
        with lw.ctx.builder.at_line(lw.line_of(node)):
            test = lw.expr(node.test)
        if not POLICY.should_unroll_while(test, exits):
            break
        if not test or _unrolled_iteration(lw, node.body):
            lw.note(node, POLICY.while_note(trips + bool(test), finished=True))
            return
        trips += 1
    else:
        raise lw.err(node, f"this while loop did not end after {MAX_UNROLL} iterations "
                     "known at compile time.", "Check its condition.")
    lw.note(node, POLICY.while_note(trips, finished=False))
    flags = loop_exits.make_flags(lw, node.body)
    carried, init = _carried(lw, node, [])
    carried += loop_exits.carried_flags(flags)
    init += [lw.env[n] for n in loop_exits.carried_flags(flags)]

    def body(env: dict[str, Any], _index: Any) -> None:
        loop_exits.iteration(lw, node, flags, tested=True)

    def cond() -> Any:
        # `not stopped and test`: after a `break` the user's loop does not evaluate its
        # test again (it may fail then: an index run past the end), nor does this one
        stopped = loop_exits.exit_flags(lw, flags, loop_exits.STOPS)
        if not stopped:
            return lw.expr(node.test)
        go_on = loop_exits.not_any(lw, stopped, node)
        if not is_symbolic(go_on):
            return lw.expr(node.test) if go_on else go_on
        if isinstance(node.test, gast.Constant):  # `while True:` ends by its flags alone
            return go_on if node.test.value else node.test.value
        return lower_lazy_if(lw, go_on, lambda: lw.expr(node.test), lambda: go_on, node,
                             "this while loop's test")

    outs = _emit_loop(lw, node, "while", {}, carried, init, body, cond_expr=cond)
    # `while True:` without `break` ends only by its `return`: no path falls through it
    forever = isinstance(node.test, gast.Constant) and bool(node.test.value)
    loop_exits.finish(lw, carried, outs, flags, always_returns=forever and "break" not in flags)


def loop_op(op: Op) -> bool:
    return op.prim in ("for_range", "while")
