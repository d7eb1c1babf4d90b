"""The builtin ``sorted()`` over values some of which are known only at run time.

Called by :func:`.builtin_calls.call_builtin` (a ``sorted`` of compile-time values alone runs
while compiling). Two forms differentiate:

- the sort keys are known while compiling (``sorted(params.items(), key=itemgetter(0))``,
  ``sorted(d.keys())``, a key function of the items' names): the order is decided now
  and the traced items are only moved, so each keeps its own derivative;
- the items are traced numbers without a key (``sorted([a, b, c])``): a permutation
  decided at run time, lowered to ``np.sort`` of their stack and read back item by item,
  so the derivative is ``np.sort``'s (at ties the kink table's).

Anything else (traced keys of other items, arrays compared with each other) is refused
by name: Python would compare the values, which decides an order srcgrad cannot follow.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ..symbolic import Sym, as_array, is_symbolic, record_rule
from . import calls
from .context import LocalFunction
from .control import SymEnumerate, SymRange, SymZip

if TYPE_CHECKING:
    from .lower import Lowerer


def lower(lw: Lowerer, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    if len(args) != 1 or set(kwargs) - {"key", "reverse"}:
        raise lw.err(node, "sorted() takes one iterable and the keywords key= and reverse=.")
    source, key = args[0], kwargs.get("key")
    reverse = kwargs.get("reverse", False)
    if is_symbolic(reverse):
        raise lw.err(node, "sorted(..., reverse=r) with r known only at run time.",
                     "Use a Python bool for reverse.")
    if isinstance(source, (Sym, SymRange, SymEnumerate, SymZip)):
        raise lw.err(node, "sorted() of an array or range known only at run time (its "
                     "length would be too).", "Use np.sort(x) on the array.")
    items = list(source)
    keys = [_key(lw, key, item, node) for item in items] if key is not None else items
    if not is_symbolic(keys):
        order = sorted(range(len(items)), key=lambda i: keys[i], reverse=bool(reverse))
        return [items[i] for i in order]
    if key is None and all(_traced_number(it) or not is_symbolic(it) for it in items) \
            and all(np.ndim(it) == 0 for it in items if not isinstance(it, Sym)):
        ordered = calls.call(lw, np.sort, [as_array(items)], {}, node)
        index = range(len(items) - 1, -1, -1) if reverse else range(len(items))
        with lw.ctx.builder.at_line(lw.line_of(node)):
            return [record_rule(calls.rule("getitem"), [ordered], {"index": i}) for i in index]
    raise lw.err(node, "sorted() by keys known only at run time"
                 + (" (a key= function of traced values)" if key is not None else
                    " (items that are arrays)") + " is not supported.",
                 "Sort by keys known while compiling (names, dict keys), or stack the "
                 "numbers and use np.sort / np.argsort.")


def _key(lw: Lowerer, key: Any, item: Any, node: Any) -> Any:
    """``key(item)``: lowered when it is the user's Python code, else called now (a
    builtin such as ``operator.itemgetter(0)`` or ``len`` on the item's structure)."""
    if isinstance(key, (LocalFunction, types.FunctionType)):
        return calls.call(lw, key, [item], {}, node)
    try:
        return key(item)
    except Exception as e:  # (the key's own complaint, as Python would raise it)
        raise lw.err(node, f"sorted(..., key=...): the key raised {type(e).__name__}: {e}",
                     "Give sorted() a key that reads what is known while compiling.") \
            from None


def _traced_number(item: Any) -> bool:
    if not isinstance(item, Sym):
        return False
    t = item.value.type
    return t is not None and t.known_ndim == 0
