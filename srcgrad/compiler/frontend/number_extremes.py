"""``max(a, b, ...)`` / ``min(a, b, ...)`` of Python numbers, lowered as Python computes them.

Reached from :mod:`.builtin_calls` when every item is a Python number (a float or int
known at run time, or a constant). CPython's ``max`` keeps the first item and replaces it by
each later item strictly larger (``min``: smaller); lowered the same way, one conditional
per item::

    best = a
    best = b if b > best else best

so the value is Python's own (a Python float stays one: ``np.maximum`` would make it a
NumPy scalar, and every later operation of a scalar loop would run on NumPy scalars), NaNs
behave as in Python, and the derivative flows through the item Python returns (at a tie,
the first one, like the value). Arrays and NumPy scalars keep ``np.maximum``/``np.minimum``
(ties share the gradient).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..symbolic import Sym

if TYPE_CHECKING:
    from .lower import Lowerer


def python_numbers(items: Any) -> bool:
    """Every item a Python float or int, a float among those known only at run time (ints
    alone have no derivative: ``zip``'s shortest length keeps its one ``np.minimum``)."""
    if not isinstance(items, (list, tuple)) or len(items) < 2:
        return False
    floats = False
    for item in items:
        if isinstance(item, Sym):
            t = item.value.type
            if t is None or t.kind not in ("float", "int"):
                return False
            floats = floats or t.kind == "float"
        elif type(item) not in (int, float):
            return False
    return floats


def lower(lw: Lowerer, name: str, items: Any, node: Any) -> Any:
    from .branches import lower_lazy_if  # (branches imports calls, which imports this)

    best = items[0]
    for item in items[1:]:
        wins = item > best if name == "max" else item < best
        if isinstance(wins, bool):  # both known now: Python's own choice
            best = item if wins else best
            continue
        best = lower_lazy_if(lw, wins, lambda item=item: item, lambda best=best: best, node,
                             f"this {name}()")
    return best
