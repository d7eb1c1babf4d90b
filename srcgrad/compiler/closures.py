"""When a new function object can use a version compiled for another: the same closure.

A function passed as an argument (``df(x, lambda t: np.sin(t) * c)``) is a static leaf of
the argument signature (:mod:`.structure`): the compiled version inlines its code and reads
what it captured (closure cells, defaults, globals) from *that* function object, as the
frontend's captured reads (:mod:`.frontend.captured`) and the dispatcher's guards say. A
new lambda per call, or a new closure from the same ``def``, is another object: compared
by identity alone it would compile a version per call. :func:`same_function` says when the
new one computes exactly what the compiled one does, so the version is sound for it too:
the same code object and globals, and every cell, default and attribute holding the very
same object, or an equal immutable constant (``2.0`` made twice). The version keeps
reading the first function's cells, which then hold the same values: a captured array must
be the same object, since another array would be read from the first function's cell (a
call with a new one compiles its own version, as before). A version whose compilation
also met the function elsewhere (in the function's environment: ``act is relu`` with
``relu`` a global; or as another argument, :func:`identity_bound`) may have decided on its
identity: it stands for that object only.
Sits below the dispatcher and the structure walk; imports only the rule table.
"""

from __future__ import annotations

import types
from typing import Any

from srcgrad.rules import rule_for

# immutable values whose repr is their identity as a constant (``-0.0`` is not ``0.0``;
# a NaN is the same constant as another NaN)
_CONSTANTS = (int, float, complex, str, bytes, bool, type(None))


def same_function(new: Any, compiled: Any) -> bool:
    """Whether plain function ``new`` computes what ``compiled`` computes, reading equal
    values wherever ``compiled``'s version reads its captured ones (see module doc)."""
    if new is compiled:
        return True
    if type(new) is not types.FunctionType or type(compiled) is not types.FunctionType:
        return False
    if new.__code__ is not compiled.__code__ or new.__globals__ is not compiled.__globals__:
        return False
    if rule_for(new) is not rule_for(compiled):  # (sg.defvjp: its rule is its derivative)
        return False
    if _names(new) != _names(compiled):  # (the function may read them)
        return False
    return (_same_items(new.__defaults__, compiled.__defaults__)
            and _same_mapping(new.__kwdefaults__, compiled.__kwdefaults__)
            and _same_mapping(new.__dict__, compiled.__dict__)
            and _same_cells(new.__closure__, compiled.__closure__))


def _names(fn: types.FunctionType) -> tuple[str, str, str]:
    return fn.__name__, fn.__qualname__, fn.__module__


def identity_bound(statics: list[Any], deps: Any) -> set[int]:
    """The ids of the functions among ``statics`` (the static values of one signature) a
    compile-time decision may have rested on the identity of: met in the environment too
    (:func:`observed_in`), or given twice (``df(x, act, act)`` decided ``a is b``)."""
    functions = [v for v in statics if type(v) is types.FunctionType]
    seen: set[int] = set()
    bound: set[int] = set()
    for fn in functions:
        if id(fn) in seen or observed_in(fn, deps):
            bound.add(id(fn))
        seen.add(id(fn))
    return bound


def observed_in(fn: Any, deps: Any) -> bool:
    """Whether compiling read ``fn`` from the environment as well as from the argument (a
    global, a cell, an item of a captured container, a key of a captured dict: every such
    read is a recorded dependency, ``deps``). A compile-time decision may then rest on its
    identity (``act is relu``, ``TABLE[act]``), which a new function object would not
    share."""
    return any(_holds(dep.obj, fn) or _holds(dep.fact, fn) for dep in deps)


def _holds(value: Any, fn: Any, depth: int = 4) -> bool:
    if value is fn:
        return True
    if depth == 0 or value is None or type(value) in _CONSTANTS:
        return False
    if isinstance(value, dict):
        items: Any = (*value.keys(), *value.values())
    elif isinstance(value, (tuple, list, set, frozenset)):
        items = value
    elif hasattr(value, "__dataclass_fields__"):  # a fact about a captured value
        items = [getattr(value, name) for name in value.__dataclass_fields__]
    else:
        return False
    return any(_holds(item, fn, depth - 1) for item in items)


def function_key(fn: types.FunctionType) -> Any:
    """A hashable key equal for functions :func:`same_function` may find the same."""
    return ("function", fn.__code__, id(fn.__globals__))


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t in _CONSTANTS:
        return repr(a) == repr(b)
    if t is tuple:
        return _same_items(a, b)
    return False


def _same_items(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))


def _same_mapping(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    if not a or not b:
        return not a and not b
    return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)


def _same_cells(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    if a is None or b is None:
        return a is b
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        try:
            vx = x.cell_contents
        except ValueError:  # (an empty cell: a name the enclosing function has not bound)
            vx = _EMPTY
        try:
            vy = y.cell_contents
        except ValueError:
            vy = _EMPTY
        if not _same_value(vx, vy):
            return False
    return True


_EMPTY = object()
