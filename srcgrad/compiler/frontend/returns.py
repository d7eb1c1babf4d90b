"""The result of a lowered function: refused when it is ``None`` on any path.

A function that falls off its end (or ``return``\\ s nothing) returns ``None``; on a path
chosen at run time, that ``None`` is a constant yielded by one branch of the ``if`` the
early return became (:func:`.branches.lower_if_returning`; a ``return`` inside a loop
becomes ``if <returned>: return <value>`` after it). Left alone, the derivative of such a
function is silently zero (reverse mode: nothing is active) or a ``TypeError`` in the
emitted code, so :func:`check_result` refuses it at compile time, naming the ``if`` or loop
whose path returns ``None``.
"""

from __future__ import annotations

from typing import Any

import gast

from srcgrad.errors import SrcGradError

from ..ir.core import Value, const_value
from ..symbolic import Sym
from .context import error
from .control import RunList, flatten
from .source import Parsed


def check_result(parsed: Parsed, node: Any, name: str, result: Any) -> None:
    """Raise SrcGradError if ``result`` (the lowered function's return) is ``None`` on some
    path or on all of them."""
    if result is None:
        line_node = _last_return(node) or node
        raise error(parsed, line_node,
                    f"`{name}` returns None on every path (it has no `return <value>`, or "
                    "returns nothing or None): there is nothing to differentiate.",
                    "Return the value to differentiate, e.g. `return loss`.")
    leaves, _ = flatten(result)
    for leaf in leaves:
        if isinstance(leaf, RunList):
            raise error(parsed, _last_return(node) or node,
                        f"`{name}` returns a list built by a loop whose trip count is known "
                        "only at run time (a comprehension over an array's rows, or "
                        "`.append` in such a loop): its length is not known while "
                        "compiling, so its derivative cannot be given the same structure.",
                        "Return an array instead: np.stack(items) (or np.array(items)).")
        if isinstance(leaf, Sym):
            where = _none_path(leaf.value, set())
            if where is not None:
                line, branch = where
                text = "" if line is None else parsed.lines.get(line, "").lstrip()
                when = ("when this loop ends without returning" if
                        text.startswith(("for ", "while ", "async for ")) else
                        f"when the condition on this line is {branch}")
                raise SrcGradError(
                    f"`{name}` returns None on some paths: {when}, it reaches the end "
                    "without `return <value>` (or returns None), and None has no "
                    "derivative.",
                    filename=parsed.filename,
                    lineno=line if line is not None else parsed.file_line(node),
                    advice="Return a value on every path (e.g. add an `else:` or a final "
                           "`return` after the `if` or loop).")


def _none_path(v: Value, seen: set[int]) -> tuple[int | None, str] | None:
    """(line, "True"/"False") of an ``if`` whose branch yields ``None`` for ``v``."""
    op = v.op
    if op is None or op.prim != "if" or id(op) in seen:
        return None
    seen.add(id(op))
    k = op.outputs.index(v)
    for region, branch in zip(op.regions, ("True", "False")):
        item = region.results[k]
        if const_value(item) == (True, None):
            return op.line, branch
        found = _none_path(item, seen)
        if found is not None:
            return found
    return None


def _last_return(node: Any) -> Any:
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[-1], gast.Return):
        return body[-1]
    return None
