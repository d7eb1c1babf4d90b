"""Lowering ``for`` and ``while``.

``outputs = for_range(start, stop, step, init) {^(i, carried...) body}``; iterating an
array's rows, ``enumerate`` and ``zip`` are ranges with subscripts inside.
``outputs = while(init) {^(carried...) cond} {^(carried...) body}``. Loops over Python
lists, and over constant ranges whose body appends to a local list, are unrolled.
"""

from __future__ import annotations

from typing import Any

from ..ir import types as T
from ..ir.core import Block, Op, Value
from ..symbolic import Sym, is_symbolic, to_value
from .control import (
    MAX_UNROLL,
    LoopExit,
    SymEnumerate,
    SymRange,
    SymZip,
    assigned_names,
    in_block,
    join_types,
    mutated_lists,
    no_exit,
)


def lower_for(lw: Any, node: Any) -> None:
    if node.orelse:
        raise lw.err(node, "`for ... else` is not supported.", "Use a flag variable.")
    iterable = lw.expr(node.iter)
    static = _static_items(iterable)
    if static is None and isinstance(iterable, range) and mutated_lists(lw, node.body):
        static = list(iterable)
    if static is not None:
        _unroll(lw, node, static)
        return
    bounds, item_of = _iteration(lw, iterable, node)
    if mutated_lists(lw, node.body):
        raise lw.err(node, "a list is built with .append in a loop whose trip count is known "
                     "only at run time.", "Loop over a constant range, or preallocate an "
                     "array (np.zeros) and write y[i] = v.")
    targets = assigned_names([node.target])
    carried = [n for n in assigned_names(node.body) if n in lw.env and n not in targets]
    init = [lw.env[n] for n in carried]

    def body(env: dict[str, Any], index: Any) -> None:
        lw.assign(node.target, item_of(index), node)
        no_exit(lw, node.body, "inside a loop with a run-time trip count")

    with lw.ctx.builder.at_line(lw.line_of(node)):
        start, stop, step = (to_value(b) for b in bounds)
    outs = _emit_loop(lw, node, "for_range", {"start": start, "stop": stop, "step": step},
                      carried, init, body)
    for n, out in zip(carried, outs):
        lw.env[n] = Sym(out)


def _static_items(iterable: Any) -> list[Any] | None:
    if isinstance(iterable, (list, tuple)):
        return list(iterable)
    if isinstance(iterable, (enumerate, zip, dict)):
        return list(iterable)
    return None


def _unroll(lw: Any, node: Any, items: list[Any]) -> None:
    if len(items) > MAX_UNROLL:
        raise lw.err(node, f"a loop of {len(items)} iterations over a Python list is too long "
                     "to unroll.", "Loop over an array instead.")
    for item in items:
        lw.assign(node.target, item, node)
        try:
            for stmt in node.body:
                lw.stmt(stmt)
        except LoopExit as e:
            if e.kind == "break":
                break


def _iteration(lw: Any, iterable: Any, node: Any) -> tuple[tuple[Any, Any, Any], Any]:
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
        if bounds[0] != 0 or bounds[2] != 1:
            raise lw.err(node, "enumerate over a range with a start or step is not supported.")
        return bounds, lambda i: (i, inner(i))
    if isinstance(iterable, SymZip):
        parts = [_iteration(lw, it, node) for it in iterable.items]
        stop = parts[0][0][1]
        for (_start, other, _step), _ in parts[1:]:
            stop = lw.builtin_min(stop, other, node)
        if any(p[0][0] != 0 or p[0][2] != 1 for p in parts):
            raise lw.err(node, "zip over ranges with a start or step is not supported.")
        return (0, stop, 1), lambda i: tuple(item(i) for _, item in parts)
    raise lw.err(node, f"cannot loop over {type(iterable).__name__} here.",
                 "Loop over range(...), an array, enumerate(...) or zip(...).")


def _emit_loop(lw: Any, node: Any, prim: str, args: dict[str, Any], carried: list[str],
               init: list[Any], body_fn: Any, cond_expr: Any = None) -> list[Any]:
    """Lower a loop body (and condition), joining carried types until they settle."""
    with lw.ctx.builder.at_line(lw.line_of(node)):
        init_values = [to_value(v) for v in init]
    types = [v.type or T.ANY for v in init_values]
    for _attempt in range(4):
        regions, result_types = _loop_regions(lw, prim, carried, types, body_fn, cond_expr)
        joined = [join_types(a, b) for a, b in zip(types, result_types)]
        if joined == types:
            break
        types = joined
    op = lw.ctx.builder.emit(prim, {**args, "init": tuple(init_values)}, types=types,
                             n_out=len(carried))
    op.regions = regions
    for n, out in zip(carried, op.outputs):
        out.name = n
    return op.outputs


def _loop_regions(lw: Any, prim: str, carried: list[str], types: list[T.AType],
                  body_fn: Any, cond_expr: Any) -> tuple[list[Block], list[T.AType]]:

    regions = []
    if prim == "while":
        cond_block = Block(params=[Value(n, type=t) for n, t in zip(carried, types)])
        env = dict(lw.env)
        env.update({n: Sym(p) for n, p in zip(carried, cond_block.params)})
        with in_block(lw, cond_block, env):
            cond = lw.expr(cond_expr)
            cond_block.results = [to_value(cond)]
        regions.append(cond_block)
    body = Block(params=[Value(n, type=t) for n, t in zip(carried, types)])
    index = None
    if prim == "for_range":
        index = Value("i", type=T.INT)
        body.params.insert(0, index)
    env = dict(lw.env)
    carried_params = body.params[1:] if index is not None else body.params
    env.update({n: Sym(p) for n, p in zip(carried, carried_params)})
    with in_block(lw, body, env):
        body_fn(env, Sym(index) if index is not None else None)
        body.results = [to_value(lw.env[n]) if n in lw.env else to_value(None) for n in carried]
    regions.append(body)
    return regions, [r.type or T.ANY for r in body.results]


# --- while ---------------------------------------------------------------------------------

def lower_while(lw: Any, node: Any) -> None:
    if node.orelse:
        raise lw.err(node, "`while ... else` is not supported.", "Use a flag variable.")
    for _ in range(MAX_UNROLL):
        with lw.ctx.builder.at_line(lw.line_of(node)):
            test = lw.expr(node.test)
        if is_symbolic(test):
            break
        if not test:
            return
        try:
            for stmt in node.body:
                lw.stmt(stmt)
        except LoopExit as e:
            if e.kind == "break":
                return
    else:
        raise lw.err(node, f"this while loop did not end after {MAX_UNROLL} iterations "
                     "known at compile time.", "Check its condition.")
    carried = [n for n in assigned_names(node.body) if n in lw.env]
    init = [lw.env[n] for n in carried]

    def body(env: dict[str, Any], _index: Any) -> None:
        no_exit(lw, node.body, "inside a `while` on a run-time condition")

    outs = _emit_loop(lw, node, "while", {}, carried, init, body, cond_expr=node.test)
    for n, out in zip(carried, outs):
        lw.env[n] = Sym(out)


def loop_op(op: Op) -> bool:
    return op.prim in ("for_range", "while")
