"""Lowering calls given a list that a loop with a run-time trip count built (``hs``).

Such a list (:class:`.control.RunList`: the loop's collected output, a list at run time)
has no length while compiling, so it cannot be a Python list of symbolic values. Where
NumPy reads an array (``np.mean(losses)``, ``np.stack(hs)``, an element of
``np.concatenate([hs, gs])``) it is the array ``np.asarray(hs)`` would make, the
``stack_list`` primitive; ``len``, ``sum``, ``min``, ``max``, ``math.fsum`` and
``math.prod`` read it the same way. Anywhere else (a user's function, the sequence of a
variadic input such as ``np.concatenate(hs)``) it is refused with advice.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from srcgrad.rules import rule_for

from ..structural import STRUCTURAL
from ..symbolic import record_rule
from .control import RunList

if TYPE_CHECKING:
    from .lower import Lowerer


def holds_run_list(obj: Any) -> bool:
    if isinstance(obj, RunList):
        return True
    return isinstance(obj, (list, tuple)) and any(holds_run_list(o) for o in obj)


def run_list_call(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any],
                  node: Any) -> Any:
    """A call given a list a run-time loop built (``hs``): ``np.stack(hs)``, ``len(hs)``,
    and wherever NumPy reads an array (``np.mean(losses)``) or a builtin reduces the items
    (``sum(losses)``, ``math.fsum``), the array ``np.asarray(hs)`` (``stack_list``)."""
    from . import builtin_calls, calls  # calls imports this module
    if func in (np.stack, np.array, np.asarray) and isinstance(args[0], RunList) \
            and set(kwargs) <= {"axis"} and len(args) <= 2:
        axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
        if func is not np.stack and axis != 0:
            raise lw.err(node, f"np.{func.__name__} takes no axis.")
        return _stacked(args[0])
    if func is np.concatenate and len(args) == 1 and isinstance(args[0], RunList) \
            and set(kwargs) <= {"axis"}:
        return _concatenated(lw, args[0], kwargs.get("axis", 0), node)
    if func is len and len(args) == 1:
        return builtin_calls.call_builtin(lw, len, [args[0].value], {}, node)
    if _reads_arrays_at(func, args, kwargs):
        return calls.call(lw, func, [_stacked(a) for a in args],
                          {k: _stacked(v) for k, v in kwargs.items()}, node)
    raise lw.err(node, f"a list built by a loop with a run-time trip count can only be passed "
                 "where NumPy reads an array (a NumPy function's array argument), to sum, min, "
                 f"max, math.fsum, math.prod or len, not to {getattr(func, '__name__', func)}.",
                 "Stack it first: arr = np.stack(items).")


def _concatenated(lw: Lowerer, items: RunList, axis: Any, node: Any) -> Any:
    """``np.concatenate(hs, axis)``: the items stacked (a new axis 0), that axis moved next
    to ``axis`` and the two merged by a reshape, which is what concatenating them is; so
    it differentiates through ``stack_list``, ``moveaxis`` and ``reshape``."""
    from . import calls  # calls imports this module
    stacked = _stacked(items)
    item = _item_type(items)
    ndim = None if item is None or item.known_ndim is None else item.known_ndim + 1
    if ndim is None or ndim < 2 or not isinstance(axis, int) or not -ndim < axis < ndim:
        raise lw.err(node, "np.concatenate of a list built by a loop with a run-time trip "
                     "count needs arrays of a known number of dimensions (1 or more) and an "
                     "int axis.", "Stack it first: arr = np.stack(items), then reshape it.")
    axis %= ndim - 1
    shape = calls.call(lw, np.shape, [stacked], {}, node)
    dims = [shape[k + 1] for k in range(ndim - 1)]
    dims[axis] = -1
    moved = calls.call(lw, np.moveaxis, [stacked, 0, axis], {}, node)
    return calls.call(lw, np.reshape, [moved, tuple(dims)], {}, node)


def _item_type(items: RunList) -> Any:
    """The type of what the loop appends (the body's extra result for this list)."""
    out = items.value.value
    op = out.op
    if op is None or not op.regions:
        return None
    k = op.outputs.index(out)
    results = op.regions[-1].results
    return results[k].type if k < len(results) else None


def _stacked(v: Any) -> Any:
    """``v`` with every run-time list in it replaced by the array it makes (np.asarray)."""
    if isinstance(v, RunList):
        return record_rule(STRUCTURAL["stack_list"], [v.value, 0], {})
    if isinstance(v, (list, tuple)) and holds_run_list(v):
        return type(v)(_stacked(o) for o in v)
    return v


def _reads_arrays_at(func: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Does ``func`` read every run-time list it is given as an array (``np.asarray``)?

    Yes for the first argument of ``sum``/``min``/``max``/``math.prod``, and for a rule's
    array inputs: a run-time list itself, or inside a list (``np.mean([hs, gs])``, each
    array of ``np.concatenate([hs, gs])``), but not as the sequence of a variadic input
    (``np.concatenate(hs)``: its length is not known while compiling)."""
    if func in (sum, min, max, math.prod):
        return len(args) >= 1 and not holds_run_list([*args[1:], *kwargs.values()])
    if func in (np.array, np.asarray):  # np.array([hs, gs]): every item is an array
        return not holds_run_list(list(kwargs.values()))
    r = rule_for(func)
    if r is None or r.user:
        return False  # a user's function may want the list itself
    try:
        env = r.bind(args, kwargs)
    except TypeError:
        return False
    for k, v in env.items():
        if not holds_run_list(v):
            continue
        if k not in r.inputs or (isinstance(v, RunList) and k in (r.variadic,
                                                                  r.call_form.star)):
            return False
    return True
