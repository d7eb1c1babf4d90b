"""Lowering calls of Python's builtins (``len``, ``sum``, ``max``, ``range``, ...).

Reached from :func:`.calls.call` when the callee is one of Python's own builtins (or
``math.prod``). A builtin the compile-time policy runs (``len`` of a list of run-time values)
runs now; the others on values known only at run time become NumPy rules
(``max``/``min``/``sum``/``math.prod`` as left-to-right chains like Python's), loop
iterables (``range``, ``enumerate``, ``zip``: :mod:`.control`) or a refusal with advice.
"""

from __future__ import annotations

import inspect
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ir import types as T
from ..symbolic import Sym, is_symbolic, record_rule, to_value
from ..tree_text import short_repr
from . import calls, number_extremes, sorted_builtin
from .control import SymEnumerate, SymRange, SymZip
from .identity import is_instance
from .inlining import bind_call
from .policy import POLICY

if TYPE_CHECKING:
    from .lower import Lowerer


def _fold(lw: Lowerer, name: str, items: Any, start: Any, unit: int,
          combine: Callable[[Any, Any], Any], node: Any) -> Any:
    """Python's ``sum`` / ``math.prod`` (NumPy's ``name``): ``start`` combined with each item
    from the left, an int ``start`` equal to ``unit`` left out (``sum([a, b])`` is ``a +
    b``, of the items' own type, as Python's is); an array's items: NumPy's reduction over
    its first axis, then ``start`` when it is not a number equal to ``unit``."""
    if isinstance(items, Sym):
        total = calls.call_numpy_name(lw, name, [items], {"axis": 0}, node)
        plain_unit = isinstance(start, (int, float)) and start == unit
        return total if plain_unit else combine(total, start)
    result, first = start, isinstance(start, int) and start == unit
    for item in items:
        result = item if first else combine(result, item)
        first = False
    return result


def call_builtin(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    symbolic = is_symbolic(args) or is_symbolic(list(kwargs.values())) or any(
        isinstance(a, (SymRange, SymEnumerate, SymZip)) for a in args)
    name = getattr(func, "__name__", "")
    if name == "print":
        lw.ctx.builder.emit("print", {"items": tuple(to_value(a) for a in args)},
                            attrs={"kwargs": dict(kwargs)}, n_out=0)
        return None
    if POLICY.should_run_builtin(name, args, symbolic):
        return func(*args, **kwargs)
    if name == "isinstance" and not kwargs and len(args) == 2:
        return is_instance(lw, args[0], args[1], node)
    if name in ("float", "int", "len"):
        (x,) = args
        if name == "float" and isinstance(x, Sym) and x.value.type == T.FLOAT:
            return x
        out = record_rule(calls.rule(name), [x], {})
        out.value.type = {"float": T.FLOAT, "int": T.INT, "len": T.INT}[name]
        return out
    if name in ("max", "min"):
        return _extreme(lw, name, args, kwargs, node)
    if func is sorted:
        return sorted_builtin.lower(lw, args, kwargs, node)
    if func is math.prod:
        start = args[1] if len(args) > 1 else kwargs.get("start", 1)
        return _fold(lw, "prod", args[0], start, 1, operator.mul, node)
    if name == "sum":
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        return _fold(lw, "sum", args[0], start, 0, operator.add, node)
    if name == "range":
        parts = list(args)
        if len(parts) == 1:
            parts = [0, parts[0]]
        return SymRange(*parts)
    if name == "enumerate":
        return _enumerate(lw, args, kwargs, node)
    if name == "zip" and not kwargs:
        return SymZip(tuple(args))
    if name in ("tuple", "list") and len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0]) if name == "tuple" else list(args[0])
    what = "with keyword arguments " if kwargs and name == "zip" else ""
    raise lw.err(node, f"the builtin {name}() {what}on a value known only at run time is not "
                 "supported in a differentiated function.", _BUILTIN_ADVICE.get(
                     name, f"Use the NumPy function for it (np.{name}(...)), or compute it "
                     "with operators." if hasattr(np, name) else "Compute it with NumPy "
                     "functions and operators."))


def _extreme(lw: Lowerer, name: str, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    """``max``/``min`` of values known at run time: ``np.maximum``/``np.minimum`` chains
    (ties share the gradient); with ``key=``, Python's choice itself: an item replaces the
    current one only where its key is strictly larger (smaller), so the first wins."""
    if set(kwargs) - {"key", "default"}:
        raise lw.err(node, f"{name}() got unexpected keyword arguments {sorted(kwargs)}.")
    items = args[0] if len(args) == 1 else args
    key = kwargs.get("key")
    if isinstance(items, Sym):
        if key is not None:
            raise lw.err(node, f"{name}(array, key=...) over a value known only at run time "
                         "is not supported.", f"Compute the keys with NumPy and use "
                         f"np.arg{name}: x[np.arg{name}(keys)].")
        return calls.call_numpy_name(lw, name, [items], {}, node)
    if not items:
        if "default" in kwargs:
            return kwargs["default"]
        raise lw.err(node, f"{name}() of an empty sequence.")
    if key is None and number_extremes.python_numbers(items):
        return number_extremes.lower(lw, name, items, node)
    if key is None:
        fn = np.maximum if name == "max" else np.minimum
        result = items[0]
        for item in items[1:]:
            result = calls.call(lw, fn, [result, item], {}, node)
        return result
    better = np.greater if name == "max" else np.less
    result, best = items[0], calls.call(lw, key, [items[0]], {}, node)
    for item in items[1:]:
        k = calls.call(lw, key, [item], {}, node)
        if not is_symbolic([k, best]):  # keys known now: Python's own choice
            if better(k, best):
                result, best = item, k
            continue
        wins = calls.call(lw, better, [k, best], {}, node)
        result = calls.call(lw, np.where, [wins, item, result], {}, node)
        best = calls.call(lw, np.where, [wins, k, best], {}, node)
    return result


_BUILTIN_ADVICE = {
    "zip": "Call zip(a, b, ...) without keywords; the shortest argument sets the length.",
    "tuple": "Index the array (x[0], x[1], ...) or loop over it.",
    "list": "Index the array (x[0], x[1], ...) or loop over it.",
    "range": "Pass range() one to three ints.",
}


def _enumerate(lw: Lowerer, args: list[Any], kwargs: dict[str, Any], node: Any) -> SymEnumerate:
    """``enumerate(items)``, ``enumerate(items, start)``, ``enumerate(items, start=k)``."""
    bound = bind_call(lw, inspect.signature(lambda iterable, start=0: None), "enumerate()",
                      args, kwargs, node, "Call it as enumerate(items) or enumerate(items, start).")
    bound.apply_defaults()
    start = bound.arguments["start"]
    t = start.value.type if isinstance(start, Sym) else None
    if not (isinstance(start, int) or (t is not None and t.kind in ("int", "bool"))):
        raise lw.err(node, f"enumerate() needs an int start, not {_describe(start)}.",
                     "Pass an int: enumerate(items, 1).")
    return SymEnumerate(bound.arguments["iterable"], start)


def _describe(value: Any) -> str:
    if isinstance(value, Sym):
        return f"a value of type {value.value.type}"
    return f"{type(value).__name__} {short_repr(value)}"
