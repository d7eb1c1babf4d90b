"""Lowering list comprehensions and generator expressions (``[e for v in xs if c]``,
``sum(e for v in xs)``): each is rewritten into the statements Python runs for it, a fresh
list, ``for`` loops nested in generator order with their ``if`` filters, and one
``.append(e)``, and those statements are lowered like the user's own. So a comprehension
over a range, a list or an array unrolls or becomes a run-time loop exactly as the loop
would, with the same refusals (an append under a run-time ``if`` inside a run-time loop).
A generator expression is the list it would yield: the callers srcgrad knows (``sum``,
``np.sum``, ``np.array``, ``max``...) read it whole. The comprehension's own names do not
leak into the function, as in Python 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gast

from srcgrad.errors import SrcGradError

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
        raise lw.err(node, "a comprehension whose `if` filter is known only at run time (or "
                     "that runs over a loop known only at run time) is not supported: the "
                     "length of its list would be known only at run time.",
                     "Keep every item and select with np.where(condition, value, 0.0), or "
                     "index with a boolean mask (x[x > 0]).") from None
    value = lw.env[tmp]
    for n in hidden:  # the comprehension's names are its own (Python 3 scoping)
        lw.env.pop(n, None)
    lw.env.update(saved)
    return value


def _name(name: str, ctx: Any) -> Any:
    return gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None)
