"""Lowering ``if`` / ``elif`` / ``else``, early ``return`` and ``a if c else b``.

``outputs = if(cond) {then block} {else block}``: each block yields the new values of the
variables either branch assigns. An ``if`` with a ``return`` inside takes the rest of the
function into its branches, so every path ends in a return and the op yields the
returned value(s): early returns need no flags.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir.core import Block
from ..symbolic import Sym, is_symbolic, to_value
from .control import (
    assigned_names,
    describe_shape,
    flatten,
    in_block,
    join_types,
    no_exit,
    unflatten,
)
from .unbound import UNBOUND, MaybeUnbound, OnSomePathsOnly, representable, typed

if TYPE_CHECKING:
    from .lower import Lowerer


def lower_if(lw: Lowerer, node: Any, cond: Any) -> None:
    """``if`` on a run-time condition, without ``return`` inside."""
    names = assigned_names(node.body + node.orelse)
    flags = lw.ctx.loop_flags[-1] if lw.ctx.loop_flags else None
    names += [f for f in (flags or {}).values() if f in lw.env and f not in names]
    names += [n for n, v in lw.env.items() if type(v) in _OWNED and n not in names]
    envs, blocks = [], []
    for stmts in (node.body, node.orelse):
        block, env = Block(), branch_env(lw)
        with in_block(lw, block, env):
            no_exit(lw, stmts, "inside an `if` on a run-time condition")
        envs.append(env)
        blocks.append(block)
    merged: list[tuple[str, Any, Any]] = []
    maybe: set[str] = set()
    for n in names:
        a, b = envs[0].get(n, _MISSING), envs[1].get(n, _MISSING)
        if a is _MISSING and b is _MISSING:
            continue
        if any(isinstance(v, (MaybeUnbound, OnSomePathsOnly)) or v is _MISSING
               for v in (a, b)):
            one_path = _one_path_only(a, b)
            if isinstance(one_path, OnSomePathsOnly):
                lw.env[n] = one_path
                continue
            a, b = one_path
            maybe.add(n)
        if (isinstance(a, dict) or isinstance(b, dict)) and a is b:
            lw.env[n] = a  # the same dict on both paths (a dict is merged by its keys)
            continue
        merged.append((n, a, b))
    values = merge_values(lw, node, cond, blocks, [(a, b) for _, a, b in merged],
                          [f"`{n}`" for n, _, _ in merged])
    for (n, _, _), value in zip(merged, values):
        value = _name_leaves(value, n)
        lw.env[n] = MaybeUnbound(value) if n in maybe else value
    _keep_list_aliases(lw, envs, [n for n, _, _ in merged])


def _keep_list_aliases(lw: Lowerer, envs: list[dict[str, Any]], names: list[str]) -> None:
    """Names that hold one container on both paths (``alias = acc``) hold one merged one."""
    first: dict[tuple[int, int], str] = {}
    for n in names:
        a, b = envs[0].get(n), envs[1].get(n)
        if type(a) in _OWNED and type(b) in _OWNED:
            key = (id(a), id(b))
            if key in first:
                lw.env[n] = lw.env[first[key]]
            else:
                first[key] = n


_OWNED = (list, dict)  # containers a branch may mutate in place (append, d[k] = v)


def branch_env(lw: Lowerer) -> dict[str, Any]:
    """The environment one branch is lowered in: a copy of the current one in which each
    list and dict the function built is the branch's own copy (aliases kept).
    ``acc.append(v)`` or ``d["k"] = v`` on one path must not show on the other: with the
    container shared, the else branch saw the then branch's item, a value defined inside
    the other block (an internal IR error), and the merge never saw the change. Containers
    the caller or a capture gave stay the same object (mutating them is refused where it
    happens)."""
    memo: dict[int, Any] = {}
    given = lw.ctx.argument_containers

    def own(value: Any) -> Any:
        if type(value) not in _OWNED or id(value) in given:
            return value
        if id(value) not in memo:
            if type(value) is list:
                memo[id(value)] = copy = []
                copy.extend(own(item) for item in value)
            else:
                memo[id(value)] = copied = {}
                copied.update((k, own(item)) for k, item in value.items())
        return memo[id(value)]

    return {name: own(value) for name, value in lw.env.items()}


def _one_path_only(a: Any, b: Any) -> tuple[Any, Any] | OnSomePathsOnly:
    """(then, else) values of a name that may be unbound after the ``if``: the sentinel
    (shaped like the other side's tuple) where it is unbound."""
    for v in (a, b):
        if isinstance(v, OnSomePathsOnly):
            return v
    a, b = (v.value if isinstance(v, MaybeUnbound) else v for v in (a, b))
    bound = b if a is _MISSING else a
    leaves, shape = flatten(bound)
    if not all(representable(leaf) for leaf in leaves):
        odd = next(leaf for leaf in leaves if not representable(leaf))
        # a frontend stand-in (a list built at run time) says what it stands for
        return OnSomePathsOnly(getattr(type(odd), "srcgrad_unpassable", None) or
                               f"a {type(odd).__name__}")
    unbound = unflatten([UNBOUND] * len(leaves), shape)
    return (unbound if a is _MISSING else a), (unbound if b is _MISSING else b)


def merge_values(lw: Lowerer, node: Any, cond: Any, blocks: list[Block],
                 pairs: list[tuple[Any, Any]], what: list[str]) -> list[Any]:
    """The value of each (then, else) pair after an ``if`` whose blocks are ``blocks``:
    tuples and lists are merged item by item, values that are the same on both paths are
    kept as they are (a constant stays a constant), the others become the if's outputs."""
    shapes, leaf_pairs = [], []
    for (a, b), name in zip(pairs, what):
        (leaves_a, shape_a), (leaves_b, shape_b) = flatten(a), flatten(b)
        if shape_a != shape_b:
            raise lw.err(node, f"{name} holds {_kind(shape_a)} on one branch of an `if` on a "
                         f"run-time condition and {_kind(shape_b)} on the other.",
                         "Give it the same tuple or list shape on both paths (or stack the "
                         "items into an array).")
        shapes.append(shape_a)
        leaf_pairs.append(list(zip(leaves_a, leaves_b)))
    varying = [(a, b) for leaves in leaf_pairs for a, b in leaves if not _same(a, b)]
    # emitted even with no outputs: the blocks may print, assert or raise
    outs = iter(emit_if(lw, cond, blocks, [[a for a, _ in varying], [b for _, b in varying]]))
    merged = []
    for shape, leaves in zip(shapes, leaf_pairs):
        merged.append(unflatten([a if _same(a, b) else Sym(next(outs)) for a, b in leaves],
                                shape))
    return merged


def _kind(shape: Any) -> str:
    if shape is None:
        return "a single value"
    return f"a {shape[0]} of shape {describe_shape(shape)}"


def _same(a: Any, b: Any) -> bool:
    return a is b or (not is_symbolic(a) and not is_symbolic(b) and _same_static(a, b))


def _name_leaves(value: Any, name: str) -> Any:
    leaves, shape = flatten(value)
    for leaf in leaves:
        if isinstance(leaf, Sym) and leaf.value.name is None:
            leaf.value.name = name
    return unflatten(leaves, shape)


_MISSING = object()


def _same_static(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return a is b


def emit_if(lw: Lowerer, cond: Any, blocks: list[Block], values: list[list[Any]]) -> list[Any]:
    results = []
    for block, vals in zip(blocks, values):
        with in_block(lw, block, dict(lw.env)):
            block.results = [to_value(v) for v in vals]
        results.append(block.results)
    types = []
    for pair in zip(*results):
        typed_values = typed(list(pair)) or list(pair)
        a, b = typed_values[0], typed_values[-1]
        types.append(join_types(a.type, b.type) if a.type != b.type else a.type)
    op = lw.ctx.builder.emit("if", {"cond": to_value(cond)}, types=types, n_out=len(types))
    op.regions = blocks
    for out, a, b in zip(op.outputs, *results):
        for src in (a, b):
            if lw.ctx.root(src).id in lw.ctx.argument_ids:
                lw.ctx.note_view(out, src)
    return op.outputs


def lower_if_returning(lw: Lowerer, node: Any, cond: Any, rest: list[Any]) -> Any:
    """``if`` with a ``return`` inside: the rest of the body goes into both branches."""
    returned = []
    blocks = []
    for stmts in (node.body + rest, node.orelse + rest):
        block = Block()
        with in_block(lw, block, branch_env(lw)):
            done, value = lw.lower_stmts(stmts)
        if not done:
            value = None  # falls off the end of the function: returns None
        returned.append(value)
        blocks.append(block)
    if flatten(returned[0])[1] != flatten(returned[1])[1]:
        raise lw.err(node, "the branches of this `if` return different numbers of values.",
                     "Return the same tuple shape on every path.")
    (value,) = merge_values(lw, node, cond, blocks, [(returned[0], returned[1])],
                            ["the returned value"])
    return value


def lower_ifexp(lw: Lowerer, node: Any, cond: Any) -> Any:
    return lower_lazy_if(lw, cond, lambda: lw.expr(node.body), lambda: lw.expr(node.orelse),
                         node, "this conditional expression")


def lower_lazy_if(lw: Lowerer, cond: Any, then: Any, other: Any, node: Any, what: str) -> Any:
    """``then() if cond else other()``, each evaluated only inside its own branch."""
    blocks, values = [], []
    for branch in (then, other):
        block = Block()
        with in_block(lw, block, dict(lw.env)):
            values.append(branch())
        blocks.append(block)
    (value,) = merge_values(lw, node, cond, blocks, [(values[0], values[1])], [what])
    return value
