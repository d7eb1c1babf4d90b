"""Lowering control flow: ``if``, ``for``, ``while``, early ``return``, ``a if c else b``.

A condition known at compile time just picks the code to lower (loops over Python lists
and constant ranges that build lists are unrolled). A condition known only at run time
becomes a structured op holding blocks (DESIGN.md principle 5):

- ``if``: ``outputs = if(cond) {then block} {else block}``; each block yields the new
  values of the variables either branch assigns. An ``if`` with a ``return`` inside takes
  the rest of the function into its branches, so every path ends in a return and the op
  yields the returned value(s): early returns need no flags.
- ``for_range``: ``outputs = for_range(start, stop, step, init) {^(i, carried...)}``;
  iterating an array's rows, ``enumerate`` and ``zip`` are ranges with subscripts inside.
- ``while``: ``outputs = while(init) {^(carried...) cond} {^(carried...) body}``.

Loop-carried values are the variables the body assigns that exist before the loop; their
types are joined over iterations (``total = 0`` then ``total = total + x[i]`` is a float).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import gast

from ..ir import types as T
from ..ir.builder import Builder, _stack
from ..ir.core import Block, Op
from ..symbolic import Sym, is_symbolic, to_value

MAX_UNROLL = 10_000
_MUTATORS = ("append", "extend", "insert", "pop")


class ReturnSignal(Exception):
    """Raised by a ``return`` to end the lowering of a statement list."""

    def __init__(self, value: Any) -> None:
        self.value = value


class LoopExit(Exception):
    """``break`` (``kind="break"``) or ``continue`` met while unrolling a loop."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


@dataclass
class SymRange:
    """``range(start, stop, step)`` with bounds known only at run time."""

    start: Any
    stop: Any
    step: Any = 1


@dataclass
class SymEnumerate:
    inner: Any


@dataclass
class SymZip:
    items: tuple[Any, ...]


# --- syntax scans ------------------------------------------------------------------------

def _walk(nodes: list[Any]) -> Iterator[Any]:
    """Every node in ``nodes``, not descending into nested functions."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                stack.append(child)


def assigned_names(stmts: list[Any]) -> list[str]:
    names: dict[str, None] = {}
    for node in _walk(stmts):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names[node.id] = None
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) \
                and isinstance(node.value, gast.Name):
            names[node.value.id] = None
        elif isinstance(node, gast.FunctionDef):
            names[node.name] = None
    return list(names)


def contains(stmts: list[Any], kinds: tuple[type, ...]) -> bool:
    return any(isinstance(n, kinds) for n in _walk(stmts))


def _mutated_lists(lw: Any, stmts: list[Any]) -> list[str]:
    out = []
    for node in _walk(stmts):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _MUTATORS and isinstance(node.func.value, gast.Name):
            held = lw.env.get(node.func.value.id)
            if isinstance(held, list):
                out.append(node.func.value.id)
    return out


# --- blocks --------------------------------------------------------------------------------

@contextmanager
def in_block(lw: Any, block: Block, env: dict[str, Any]) -> Iterator[Builder]:
    """Lower into ``block`` with environment ``env`` (restored afterwards)."""
    ctx = lw.ctx
    saved_builder, saved_env = ctx.builder, lw.env
    builder = Builder(block, line=saved_builder.line)
    ctx.builder, lw.env = builder, env
    _stack.append(builder)
    try:
        yield builder
    finally:
        _stack.pop()
        ctx.builder, lw.env = saved_builder, saved_env


def _join(a: T.AType | None, b: T.AType | None) -> T.AType:
    a, b = a or T.ANY, b or T.ANY
    if a == b:
        return a
    if {a.kind, b.kind} <= {"int", "float", "bool"}:
        return T.FLOAT if "float" in (a.kind, b.kind) else T.INT
    return T.ANY


def _flatten(value: Any) -> tuple[list[Any], Any]:
    if isinstance(value, (tuple, list)):
        return list(value), ("tuple" if isinstance(value, tuple) else "list", len(value))
    return [value], None


def _unflatten(leaves: list[Any], shape: Any) -> Any:
    if shape is None:
        return leaves[0]
    return tuple(leaves) if shape[0] == "tuple" else list(leaves)


# --- if ------------------------------------------------------------------------------------

def lower_if(lw: Any, node: Any, cond: Any) -> None:
    """``if`` on a run-time condition, without ``return`` inside."""
    names = assigned_names(node.body + node.orelse)
    envs, blocks = [], []
    for stmts in (node.body, node.orelse):
        block, env = Block(), dict(lw.env)
        with in_block(lw, block, env):
            _no_exit(lw, stmts, "inside an `if` on a run-time condition")
        envs.append(env)
        blocks.append(block)
    merged = []
    for n in names:
        a, b = envs[0].get(n, _MISSING), envs[1].get(n, _MISSING)
        if a is _MISSING or b is _MISSING:
            lw.env.pop(n, None)  # defined on one path only: not usable after the if
            continue
        if a is b or (not is_symbolic(a) and not is_symbolic(b) and _same_static(a, b)):
            lw.env[n] = a
            continue
        for v in (a, b):
            if isinstance(v, (list, dict)) or (isinstance(v, tuple) and is_symbolic(v)):
                raise lw.err(node, f"`{n}` holds a different list or tuple on each branch of "
                             "an `if` on a run-time condition.",
                             "Assign arrays or numbers in the branches, or stack the list "
                             "before the if.")
        merged.append(n)
    outs = _emit_if(lw, cond, blocks, [[envs[k][n] for n in merged] for k in (0, 1)])
    for n, out in zip(merged, outs):
        out.name = n
        lw.env[n] = Sym(out)


_MISSING = object()


def _same_static(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return a is b


def _emit_if(lw: Any, cond: Any, blocks: list[Block], values: list[list[Any]]) -> list[Any]:
    results = []
    for block, vals in zip(blocks, values):
        with in_block(lw, block, dict(lw.env)):
            block.results = [to_value(v) for v in vals]
        results.append(block.results)
    types = [_join(a.type, b.type) if a.type != b.type else a.type
             for a, b in zip(*results)]
    op = lw.ctx.builder.emit("if", {"cond": to_value(cond)}, types=types, n_out=len(types))
    op.regions = blocks
    for out, a, b in zip(op.outputs, *results):
        for src in (a, b):
            if lw.ctx.root(src).id in lw.ctx.argument_ids:
                lw.ctx.note_view(out, src)
    return op.outputs


def lower_if_returning(lw: Any, node: Any, cond: Any, rest: list[Any]) -> Any:
    """``if`` with a ``return`` inside: the rest of the body goes into both branches."""
    returned = []
    blocks = []
    for stmts in (node.body + rest, node.orelse + rest):
        block = Block()
        with in_block(lw, block, dict(lw.env)):
            done, value = lw.lower_stmts(stmts)
        if not done:
            raise lw.err(node, "a path through this `if` ends without `return` while "
                         "another returns.", "Return a value on every path.")
        returned.append(value)
        blocks.append(block)
    (leaves_a, shape_a), (leaves_b, shape_b) = _flatten(returned[0]), _flatten(returned[1])
    if shape_a != shape_b:
        raise lw.err(node, "the branches of this `if` return different numbers of values.",
                     "Return the same tuple shape on every path.")
    outs = _emit_if(lw, cond, blocks, [leaves_a, leaves_b])
    return _unflatten([Sym(o) for o in outs], shape_a)


def lower_ifexp(lw: Any, node: Any, cond: Any) -> Any:
    blocks, values = [], []
    for expr in (node.body, node.orelse):
        block = Block()
        with in_block(lw, block, dict(lw.env)):
            values.append([lw.expr(expr)])
        blocks.append(block)
    (out,) = _emit_if(lw, cond, blocks, values)
    return Sym(out)


def _no_exit(lw: Any, stmts: list[Any], where: str) -> None:
    for stmt in stmts:
        try:
            lw.stmt(stmt)
        except LoopExit as e:
            raise lw.err(stmt, f"`{e.kind}` {where} is not supported yet.",
                         "Restructure the loop with a condition in the loop header.") from None
        except ReturnSignal:
            raise lw.err(stmt, f"`return` {where} is not supported yet.",
                         "Assign the result to a variable and return after the loop.") from None


# --- for -----------------------------------------------------------------------------------

def lower_for(lw: Any, node: Any) -> None:
    if node.orelse:
        raise lw.err(node, "`for ... else` is not supported.", "Use a flag variable.")
    iterable = lw.expr(node.iter)
    static = _static_items(iterable)
    if static is None and isinstance(iterable, range) and _mutated_lists(lw, node.body):
        static = list(iterable)
    if static is not None:
        _unroll(lw, node, static)
        return
    bounds, item_of = _iteration(lw, iterable, node)
    if _mutated_lists(lw, node.body):
        raise lw.err(node, "a list is built with .append in a loop whose trip count is known "
                     "only at run time.", "Loop over a constant range, or preallocate an "
                     "array (np.zeros) and write y[i] = v.")
    targets = assigned_names([node.target])
    carried = [n for n in assigned_names(node.body) if n in lw.env and n not in targets]
    init = [lw.env[n] for n in carried]

    def body(env: dict[str, Any], index: Any) -> None:
        lw.assign(node.target, item_of(index), node)
        _no_exit(lw, node.body, "inside a loop with a run-time trip count")

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
        joined = [_join(a, b) for a, b in zip(types, result_types)]
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
    from ..ir.core import Value

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
        _no_exit(lw, node.body, "inside a `while` on a run-time condition")

    outs = _emit_loop(lw, node, "while", {}, carried, init, body, cond_expr=node.test)
    for n, out in zip(carried, outs):
        lw.env[n] = Sym(out)


def loop_op(op: Op) -> bool:
    return op.prim in ("for_range", "while")
