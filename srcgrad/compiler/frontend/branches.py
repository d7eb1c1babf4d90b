"""Lowering ``if`` / ``elif`` / ``else``, early ``return`` and ``a if c else b``.

``outputs = if(cond) {then block} {else block}``: each block yields the new values of the
variables either branch assigns. An ``if`` with a ``return`` inside takes the rest of the
function into its branches, so every path ends in a return and the op yields the
returned value(s): early returns need no flags.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block
from ..symbolic import Sym, is_symbolic, to_value
from .control import assigned_names, flatten, in_block, join_types, no_exit, unflatten


def lower_if(lw: Any, node: Any, cond: Any) -> None:
    """``if`` on a run-time condition, without ``return`` inside."""
    names = assigned_names(node.body + node.orelse)
    flags = lw.ctx.loop_flags[-1] if lw.ctx.loop_flags else None
    names += [f for f in (flags or {}).values() if f in lw.env and f not in names]
    envs, blocks = [], []
    for stmts in (node.body, node.orelse):
        block, env = Block(), dict(lw.env)
        with in_block(lw, block, env):
            no_exit(lw, stmts, "inside an `if` on a run-time condition")
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
    types = [join_types(a.type, b.type) if a.type != b.type else a.type
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
            value = None  # falls off the end of the function: returns None
        returned.append(value)
        blocks.append(block)
    (leaves_a, shape_a), (leaves_b, shape_b) = flatten(returned[0]), flatten(returned[1])
    if shape_a != shape_b:
        raise lw.err(node, "the branches of this `if` return different numbers of values.",
                     "Return the same tuple shape on every path.")
    outs = _emit_if(lw, cond, blocks, [leaves_a, leaves_b])
    return unflatten([Sym(o) for o in outs], shape_a)


def lower_ifexp(lw: Any, node: Any, cond: Any) -> Any:
    return lower_lazy_if(lw, cond, lambda: lw.expr(node.body), lambda: lw.expr(node.orelse))


def lower_lazy_if(lw: Any, cond: Any, then: Any, other: Any) -> Any:
    """``then() if cond else other()``, each evaluated only inside its own branch."""
    blocks, values = [], []
    for branch in (then, other):
        block = Block()
        with in_block(lw, block, dict(lw.env)):
            values.append([branch()])
        blocks.append(block)
    (out,) = _emit_if(lw, cond, blocks, values)
    return Sym(out)
