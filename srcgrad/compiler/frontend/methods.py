"""Array attributes and methods on symbolic values: ``x.T``, ``x.shape``, ``x.sum(axis=0)``.

The shared table :mod:`srcgrad.rules.methods` maps each method and attribute to a rule and
converts the call to that rule's NumPy form (``x.reshape(2, 3)`` -> ``reshape(x, (2, 3))``),
so a method reaches the same rule as the function. Attributes that only describe the
array (``ndim``, ``dtype``) are constants where the abstract type knows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from srcgrad.rules import Rule
from srcgrad.rules import methods as spellings

from ..ir import types as T
from ..symbolic import Sym, record_rule
from .context import BoundMethod

if TYPE_CHECKING:
    from .lower import Lowerer

_LIST_MUTATORS = ("append", "extend", "insert", "pop", "remove", "sort", "clear", "reverse")
_FRESH_COPY = ("flatten",)  # mapped to a rule that may return a view, but always copy
_RESULT_TYPES = {"shape": T.STATIC, "ndim": T.INT, "size": T.INT, "len": T.INT,
                 "dtype": T.STATIC}


def attribute(lw: Lowerer, obj: Any, name: str, node: Any) -> Any:
    if not isinstance(obj, Sym):
        raise lw.err(node, f"attribute `{name}` of a value known only at run time.")
    t = obj.value.type or T.ANY
    if name == "ndim" and t.known_ndim is not None:
        return t.known_ndim
    if name == "dtype" and t.dtype is not None:
        return np.dtype(t.dtype)
    attributes = spellings.attributes()
    if name in attributes:
        rule, convert = attributes[name]
        args, kwargs = convert(obj)
        return _record(lw, rule, name, obj, args, kwargs)
    if name in spellings.methods() or name in _LIST_MUTATORS:
        return BoundMethod(obj, name)
    made_by = obj.value.op.prim if obj.value.op is not None else None
    if made_by == "call" and t == T.ANY and not name.startswith("_"):
        # an object a call without a rule made at run time (a np.random.RandomState(0)):
        # its method is another such call, whose result has no derivative
        return RunTimeMethod(obj, name)
    if not hasattr(np.ndarray, name):  # not an array's: an object srcgrad sees as one
        raise lw.err(node, f"`.{name}` is not an attribute of an array, and srcgrad knows "
                     "this value only as an array here (of unknown structure).",
                     "Call the derived function with the object itself (a dataclass, "
                     "namedtuple or your class: its fields become leaves), or give its "
                     "structure to srcgrad show with --types.")
    # advice names only a NumPy function that exists (there is no np.fill or np.tolist)
    advice = (f"Use the NumPy function instead (np.{name}(x, ...))." if hasattr(np, name)
              else "Write it with NumPy functions and operators on a new array instead (a "
                   "derived function never changes its arguments).")
    raise lw.err(node, f"the array attribute `.{name}` is not supported.", advice)


@dataclass(frozen=True)
class RunTimeMethod:
    """``obj.name`` of an object made at run time by a call without a rule."""

    obj: Sym
    name: str


def call_method(lw: Lowerer, method: BoundMethod, args: list[Any], kwargs: dict[str, Any],
                node: Any) -> Any:
    if method.name in _LIST_MUTATORS:
        raise lw.err(node, f"`.{method.name}(...)` would mutate a list or array the caller "
                     "passed in (derived functions never modify their arguments).",
                     "Build a new local list instead: items = list(arg) + [...].")
    rule, convert = spellings.methods()[method.name]
    call_args, call_kwargs = convert(method.obj, *args, **kwargs)
    return _record(lw, rule, method.name, method.obj, list(call_args), dict(call_kwargs))


def _record(lw: Lowerer, rule: Rule, name: str, obj: Sym, args: list[Any],
            kwargs: dict[str, Any]) -> Any:
    out = record_rule(rule, args, kwargs)
    if rule.name in _RESULT_TYPES:
        out.value.type = _RESULT_TYPES[rule.name]
    if rule.view and name not in _FRESH_COPY:
        lw.ctx.note_view(out.value, obj.value)
    return out
