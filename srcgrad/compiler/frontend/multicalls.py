"""Lowering a call of a tuple-returning NumPy function (``np.split``, ``np.meshgrid``,
``np.linalg.eigh``): one op per item, gathered in a Python tuple or list.

Where it sits: called by :mod:`.calls` for a callee with a record in the rule table's
:mod:`srcgrad.rules.multi`. Each item is an ordinary rule op (``split_piece``, ...), so the
AD transforms and the backend see nothing new. The result is a compile-time container of
traced values, so ``a, b, c = np.split(x, 3)``, ``res[0]``, ``for p in
np.split(...)``, ``len(...)`` and starred unpacking all work while compiling; the container
remembers the call, so a message about it (wrong number of names, an array expected) names
the function the user wrote (``Context.made_by``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from srcgrad.errors import SrcGradError
from srcgrad.rules.multi import ItemCountUnknown, MultiRule

from ..symbolic import Sym, is_symbolic, record_rule, static_value

if TYPE_CHECKING:
    from .context import Context
    from .lower import Lowerer


def made_by(ctx: Context, value: Any) -> str | None:
    """The function a list or tuple of items came from (``np.split``), or None."""
    found = ctx.made_by.get(id(value))
    return found[1] if found is not None and found[0] is value else None


def describe(ctx: Context, value: Any) -> str:
    """``np.split(...) returns a list of 3 items`` for a container of items, else ''."""
    who = made_by(ctx, value)
    if who is None:
        return ""
    return f"{who}(...) returns a {_kind(value)} of {len(value)} items"


NOT_AN_ARRAY_ADVICE = ("Take one item (items[0]) or unpack it (a, b = ...), or make an "
                       "array of it first (np.stack(items)).")


def not_an_array(ctx: Context, value: Any, what: str) -> str:
    """Why a list or tuple cannot be used as an array here (``what``: "has no attribute
    `.T`"), naming the call that made it when it is a tuple-returning call's result."""
    made = describe(ctx, value)
    kind = _kind(value) if isinstance(value, (list, tuple)) else type(value).__name__
    if made:
        return f"{made}, not an array: the {kind} {what}."
    return f"a {kind} {what} (Python raises this too)."


def _remember(ctx: Context, value: Any, spelling: str) -> Any:
    ctx.made_by[id(value)] = (value, spelling)
    return value


def _kind(value: Any) -> str:
    return "list" if isinstance(value, list) else "tuple"


def _ndim(v: Any) -> int | None:
    if isinstance(v, Sym):
        return v.value.type.known_ndim if v.value.type is not None else None
    if is_symbolic(v):
        return None
    import numpy as np
    return int(np.ndim(v))


def lower_multi(lw: Lowerer, multi: MultiRule, args: list[Any], kwargs: dict[str, Any],
                node: Any) -> Any:
    """The container of item values of ``multi``'s call ``(args, kwargs)``."""
    from . import calls  # the rule lookup (shared table, then structural rules)

    try:
        env = multi.bind(args, kwargs)
    except TypeError as e:
        raise lw.err(node, str(e), "Check the call's arguments.") from None
    # a captured value where the record needs a constant (the number of pieces): its value
    env = {k: v if k in multi.inputs else static_value(v) for k, v in env.items()}
    try:
        items = multi.items(env, {n: _ndim(env[n]) for n in multi.inputs})
    except ItemCountUnknown as e:
        raise lw.err(node, str(e), e.advice or None) from None
    except ValueError as e:
        raise lw.err(node, f"{multi.spelling}: {e}" if multi.spelling not in str(e)
                     else str(e), "Check the call's arguments.") from None
    values = []
    for item in items:
        r = calls.rule(item.rule)
        names = set(r.inputs) | set(r.params)
        try:
            out = record_rule(r, [], {k: v for k, v in item.env.items() if k in names})
        except SrcGradError as e:
            raise lw.err(node, f"{multi.spelling}: {e.message}", e.advice) from None
        first = item.env.get(r.inputs[0]) if r.inputs else None
        if r.view and isinstance(first, Sym):
            lw.ctx.note_view(out.value, first.value)
        values.append(out)
    # a plain list or tuple (the boundary flattens exactly those), or NumPy's named tuple
    return _remember(lw.ctx, multi.result(values), multi.spelling)


def lower_declared(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any],
                   declared: tuple[str, int]) -> tuple[Any, ...]:
    """A call of a function the rule table declares tuple-returning without item rules
    (``np.linalg.svd`` until it has them): one opaque call, then its items taken with
    ``operator.getitem``, so unpacking works; a derivative through the call is refused
    by the opaque-call check (ad/soundness.py), naming the function."""
    import operator

    from . import calls

    spelling, n = declared
    out = calls.opaque(lw, func, args, kwargs)
    items = tuple(calls.opaque(lw, operator.getitem, [out, i], {}) for i in range(n))
    return _remember(lw.ctx, items, spelling)
