"""Lowering a call of a tuple-returning NumPy function (``np.split``, ``np.meshgrid``,
``np.linalg.eigh``): one op per item, gathered in a Python tuple or list.

Where it sits: called by :mod:`.calls` for a callee with a record in the rule table's
:mod:`srcgrad.rules.multi`. Each item is an ordinary rule op (``split_piece``, ...), so the
AD transforms and the backend see nothing new. The result is a compile-time container of
traced values (:class:`Items`), so ``a, b, c = np.split(x, 3)``, ``res[0]``, ``for p in
np.split(...)``, ``len(...)`` and starred unpacking all work while compiling; the container
remembers the call, so a message about it (wrong number of names, an array expected) names
the function the user wrote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from srcgrad.errors import SrcGradError
from srcgrad.rules.multi import ItemCountUnknown, MultiRule

from ..symbolic import Sym, is_symbolic, record_rule, static_value

if TYPE_CHECKING:
    from .lower import Lowerer


class Items(list):  # type: ignore[type-arg]
    """The items of a tuple-returning call, and who made them (``made_by``: "np.split")."""

    made_by: str = ""


class ItemsTuple(tuple):  # type: ignore[type-arg]
    made_by: str = ""


def made_by(value: Any) -> str | None:
    """The function a container of items came from (``np.split``), or None."""
    return getattr(value, "made_by", None) or None


def describe(value: Any) -> str:
    """``np.split(...) returns 3 items`` for a container of items, else ''."""
    who = made_by(value)
    if who is None:
        return ""
    return f"{who}(...) returns a {_kind(value)} of {len(value)} items"


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
    result = multi.result(values)
    if type(result) is list:
        result = Items(result)
    elif type(result) is tuple:
        result = ItemsTuple(result)
    else:
        return result  # NumPy's named tuple (EighResult): its fields name the items
    result.made_by = multi.spelling
    return result
