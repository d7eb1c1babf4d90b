"""The exits of a run-time loop: ``break``, ``continue`` and ``return`` as flag variables.

Used by :mod:`.loops` (``for`` and ``while`` with a run-time trip count) and by the
statement lowering (:mod:`.lower`): a loop body that may exit gets flag variables the loop
carries (False at first; a ``return`` also carries its value). An iteration after one that
set ``break`` or ``return`` is skipped, the statements after one that may exit run under
``if not (any flag)``, a ``while`` test is and-ed with "no flag set", and after the loop
``if <flag>: return <value>`` is lowered where the user's ``return`` was inside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gast

from ..symbolic import Sym, is_symbolic, python_not
from .branches import lower_if
from .control import contains, exits_in, no_exit

if TYPE_CHECKING:
    from .lower import Lowerer


STOPS = ("break", "return")  # flags that end the loop; "continue" ends one iteration


def make_flags(lw: Lowerer, body: list[Any]) -> dict[str, str]:
    """Flag variables for a run-time loop's ``break``/``continue``/``return`` (False at
    first); a ``return`` also gets a variable for the value (None at first)."""
    kinds = exits_in(body) | ({"return"} if contains(body, (gast.Return,)) else set())
    flags = {}
    for kind in sorted(kinds):
        lw.ctx.flag_count += 1
        flags[kind] = f"_{kind}{lw.ctx.flag_count}"
        lw.env[flags[kind]] = False
    if "return" in flags:
        flags["value"] = f"_returned{lw.ctx.flag_count}"
        lw.env[flags["value"]] = None
    return flags


def carried_flags(flags: dict[str, str]) -> list[str]:
    return [flags[k] for k in ("break", "return", "value") if k in flags]


def exit_flags(lw: Lowerer, flags: dict[str, str], kinds: tuple[str, ...]) -> list[Any]:
    return [lw.env[flags[k]] for k in kinds if k in flags and flags[k] in lw.env]


def iteration(lw: Lowerer, node: Any, flags: dict[str, str], tested: bool = False) -> None:
    """One iteration: skipped once ``break``/``return`` ran; ``continue`` starts unset.
    ``tested``: the loop's test already ended the loop once a stop flag was set (a
    ``while``), so the flags are False where an iteration starts and nothing is skipped."""
    if "continue" in flags:
        lw.env[flags["continue"]] = False
    if tested:
        for kind in STOPS:
            if kind in flags:
                lw.env[flags[kind]] = False
    lw.ctx.loop_flags.append(flags)
    try:
        stopped = exit_flags(lw, flags, STOPS)
        if any(is_symbolic(v) for v in stopped):
            lower_if(lw, _synthetic_if(node.body, node), not_any(lw, stopped, node))
        else:
            no_exit(lw, node.body, "inside a loop with a run-time trip count")
    finally:
        lw.ctx.loop_flags.pop()


def finish(lw: Lowerer, carried: list[str], outs: list[Any], flags: dict[str, str],
           always_returns: bool = False) -> None:
    for n, out in zip(carried, outs):
        lw.env[n] = out
    for kind, name in flags.items():
        if kind not in ("return", "value"):
            lw.env.pop(name, None)
    if "return" in flags:  # the caller continues with `if flag: return value`
        lw.ctx.loop_return = (None if always_returns else flags["return"], flags["value"])


def after_loop_return(lw: Lowerer, node: Any) -> list[Any]:
    """The statement ``if <flag>: return <value>`` to lower right after a loop that may
    return (``return <value>`` after one that can end only by returning), or nothing."""
    pending, lw.ctx.loop_return = lw.ctx.loop_return, None
    if pending is None:
        return []
    flag, value = pending
    ret = gast.copy_location(gast.Return(value=gast.Name(
        id=value, ctx=gast.Load(), annotation=None, type_comment=None)), node)
    if flag is None:  # the loop is left only by its `return`: the code after it is dead
        return [ret]
    test = gast.Name(id=flag, ctx=gast.Load(), annotation=None, type_comment=None)
    check = gast.copy_location(gast.If(test=test, body=[ret], orelse=[]), node)
    check.srcgrad_synthetic = True  # srcgrad's own `if`: never noted as the user's
    return [check]


def lower_guarded(lw: Lowerer, stmts: list[Any], flags: dict[str, str]) -> None:
    """Lower a loop body's statements; after one that may ``break``/``continue``/``return``,
    the rest runs under ``if not (any flag)``."""
    stmts = list(stmts)
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        kind = "break" if isinstance(stmt, gast.Break) else \
            "continue" if isinstance(stmt, gast.Continue) else None
        if kind is not None:
            lw.env[flags[kind]] = True
            return
        if isinstance(stmt, gast.Return):
            with lw.ctx.builder.at_line(lw.line_of(stmt)):
                value = None if stmt.value is None else lw.expr(stmt.value)
            if isinstance(value, (tuple, list)):
                raise lw.err(stmt, "returning a tuple or list from inside a loop with a "
                             "run-time trip count is not supported yet.",
                             "Assign the values to variables, break, and return after the loop.")
            lw.env[flags["value"]] = value
            lw.env[flags["return"]] = True
            return
        lw.stmt(stmt)
        if isinstance(stmt, (gast.For, gast.While)):
            stmts[k + 1:k + 1] = after_loop_return(lw, stmt)
        rest = stmts[k + 1:]
        k += 1
        if not rest or not (exits_in([stmt]) or contains([stmt], (gast.Return,))):
            continue
        exited = exit_flags(lw, flags, ("break", "continue", "return"))
        if not any(is_symbolic(e) for e in exited):
            if any(exited):
                return
            continue
        lower_if(lw, _synthetic_if(rest, stmt), not_any(lw, exited, stmt))
        return


def not_any(lw: Lowerer, values: list[Any], node: Any) -> Any:
    """``not (flag or ...)``: the flags are Python bools, so Python's ``not`` (a NumPy
    ``logical_not`` per trip costs more than a scalar loop's arithmetic)."""
    from .calls import call_numpy_name

    total = values[0]
    for v in values[1:]:
        total = call_numpy_name(lw, "logical_or", [total, v], {}, node)
    return python_not(total) if isinstance(total, Sym) else not total


def _synthetic_if(body: list[Any], like: Any) -> Any:
    node = gast.If(test=gast.Constant(value=True, kind=None), body=body, orelse=[])
    node.srcgrad_synthetic = True  # srcgrad's own `if`: never noted as the user's
    return gast.copy_location(node, like)
