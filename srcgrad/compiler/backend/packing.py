"""Backend: ``np.array([a, b])`` for a ``stack`` of float64 numbers.

The frontend lowers ``np.array([a, b])`` (and ``np.stack([a, b])``) to the ``stack``
primitive, whose NumPy function is ``np.stack``: it converts each item to an array, checks
their shapes, expands each and concatenates, about five times the cost of ``np.array`` on
a few numbers (an ODE's right-hand side ``np.array([v, -k * sin(x)])`` builds one per
call). When every item is known to be one float64 number (a Python float, a NumPy
float64 scalar or a 0-d float64 array) and the call has its defaults (``axis=0``, no
``dtype``, ``casting``), both build the same 1-d float64 array, so the emitter prints::

    k1 = np.array([_t4, _t5 * _t7 - _t8 * _t4])     (for np.stack([...]))
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Op, Value, const_value

_DEFAULTS = {"axis": 0, "dtype": None, "casting": "same_kind"}


def _float64_number(v: Any) -> bool:
    t = v.type if isinstance(v, Value) else None
    if t is None:
        return False
    if t.kind == "float":
        return True
    return t.kind in ("scalar", "array") and t.known_ndim == 0 and t.dtype == "float64"


def packs_numbers(op: Op) -> bool:
    """``op`` is a ``stack`` that ``np.array`` of its items computes exactly."""
    if op.prim != "stack":
        return False
    items = op.args.get("xs")
    if not isinstance(items, tuple) or not items or not all(map(_float64_number, items)):
        return False
    for name, default in _DEFAULTS.items():
        v = op.args.get(name)
        if v is None:
            continue
        is_const, c = const_value(v) if isinstance(v, Value) else (False, None)
        if not is_const or type(c) is not type(default) or c != default:
            return False
    return True
