"""Lowering list comprehensions and generator expressions (``[e for v in xs if c]``,
``sum(e for v in xs)``): each is rewritten into the statements Python runs for it, a fresh
list, ``for`` loops nested in generator order with their ``if`` filters, and one
``.append(e)``, and those statements are lowered like the user's own. So a comprehension
over a range, a list or an array unrolls or becomes a run-time loop exactly as the loop
would, with the same refusals (an append under a run-time ``if`` inside a run-time loop).
A generator expression is the list it would yield: the callers srcgrad knows (``sum``,
``np.sum``, ``np.array``, ``max``...) read it whole. The comprehension's own names do not
leak into the function, as in Python 3.

A dict or set comprehension (``{k: v * 2 for k, v in params.items()}``) is the list
comprehension of its items made a dict or set while compiling: its keys are hashed then,
so they must be compile-time values (names, ints of a range), and its loop must unroll.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gast

from srcgrad.errors import SrcGradError

from ..symbolic import is_symbolic
from .syntax_names import describe

if TYPE_CHECKING:
    from .lower import Lowerer


def lower_comprehension(lw: Lowerer, node: Any) -> Any:
    # named by its place, so the emitted text is the same on every compile
    tmp = f"comprehension_{lw.line_of(node)}_{getattr(node, 'col_offset', 0)}"
    body: Any = gast.Expr(value=gast.Call(
        func=gast.Attribute(value=_name(tmp, gast.Load()), attr="append", ctx=gast.Load()),
        args=[node.elt], keywords=[]))
    for gen in reversed(node.generators):
        for cond in reversed(gen.ifs):
            body = gast.If(test=cond, body=[body], orelse=[])
        body = gast.For(target=gen.target, iter=gen.iter, body=[body], orelse=[],
                        type_comment=None)
    start = gast.Assign(targets=[_name(tmp, gast.Store())],
                        value=gast.List(elts=[], ctx=gast.Load()), type_comment=None)
    statements = [start, body]
    for stmt in statements:
        for sub in gast.walk(stmt):
            if "lineno" in getattr(sub, "_attributes", ()) and not hasattr(sub, "lineno"):
                gast.copy_location(sub, node)
    hidden = {tmp, *(n.id for gen in node.generators for n in gast.walk(gen.target)
                     if isinstance(n, gast.Name))}
    saved = {n: lw.env[n] for n in hidden if n in lw.env}
    try:
        lw.lower_stmts(statements)
    except SrcGradError as e:
        if tmp not in str(e):
            raise
        raise lw.err(node, f"a {describe(node)} whose `if` filter is known only at run "
                     "time (or that runs over a loop known only at run time) is not "
                     "supported: the length of its list would be known only at run time.",
                     "Keep every item and select with np.where(condition, value, 0.0), or "
                     "index with a boolean mask (x[x > 0]).") from None
    value = lw.env[tmp]
    for n in hidden:  # the comprehension's names are its own (Python 3 scoping)
        lw.env.pop(n, None)
    lw.env.update(saved)
    return value


def lower_keyed_comprehension(lw: Lowerer, node: Any) -> Any:
    """``{k: v for ...}`` and ``{e for ...}``: the list comprehension of their items, made a
    dict or set while compiling. Their keys and members are compile-time values (names of
    parameters, ints of a range): Python hashes them, so a key known only at run time, or
    a loop known only at run time (whose keys would be), is refused."""
    is_dict = isinstance(node, gast.DictComp)
    what = "dict comprehension" if is_dict else "set comprehension"
    elt = gast.Tuple(elts=[node.key, node.value], ctx=gast.Load()) if is_dict else node.elt
    gast.copy_location(elt, node)
    items = lower_comprehension(lw, gast.copy_location(
        gast.ListComp(elt=elt, generators=node.generators), node))
    if not isinstance(items, list):
        raise lw.err(node, f"a {what} over a loop known only at run time is not supported: "
                     "its keys would be known only at run time.",
                     "Loop over a range, a list, or a dict's items (known while compiling), "
                     "or build an array with np.stack([...]) instead.")
    keys = [k for k, _ in items] if is_dict else items
    if any(is_symbolic(k) for k in keys):
        whose = "keys" if is_dict else "members"
        raise lw.err(node, f"a {what} whose {whose} are values known only at run time is "
                     "not supported (they are hashed while compiling).",
                     "Use names or ints as keys, or build a list or an array instead.")
    return dict(items) if is_dict else set(items)


def _name(name: str, ctx: Any) -> Any:
    return gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None)
