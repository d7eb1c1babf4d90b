"""The cache of compiled derivatives.

Keyed by (function, transform, options, abstract argument signature). An entry remembers
what its compilation assumed: the names it resolved (:class:`~.frontend.resolve.Dependency`:
a global, closure cell, callee's defaults or code, by identity or, for captured data, by
the facts it specialised on: type, ndim, dtype, an int's value), the function's own
defaults and the rule table's generation. A lookup that finds an entry whose assumptions
no longer hold drops it, so the next call recompiles. :func:`clear_cache` forgets everything.

A change of the rule table makes every entry stale at once: it empties every derived
function's installed versions there and then (:func:`_rules_changed`), so their guards
check the names a version read but not the table's generation on each call.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from srcgrad.rules import generation
from srcgrad.rules.registry import on_change

from .frontend.resolve import Dependency


@dataclass
class Entry:
    fn: Any  # the compiled, emitted function
    text: str  # its module text
    ir: Any  # the optimised derivative IR
    deps: list[Dependency] = field(default_factory=list)
    generation: int = 0
    boundary: Any = None  # a .boundary.Boundary when some argument is structured
    # the argument kinds it was compiled for: its static leaves are the objects its code
    # reads (a function argument's cells), so the dispatcher guards on these, not on an
    # equal key of a later call (.closures)
    signature: Any = None

    def valid(self) -> bool:
        return self.generation == generation() and all(d.still_valid() for d in self.deps)


_dispatchers: weakref.WeakSet[Any] = weakref.WeakSet()  # derived functions' code, to reset
_cache: weakref.WeakKeyDictionary[Any, dict[Any, Entry]] = weakref.WeakKeyDictionary()
_unweakrefable: dict[int, tuple[Any, dict[Any, Entry]]] = {}


def _table(fn: Any) -> dict[Any, Entry]:
    try:
        return _cache.setdefault(fn, {})
    except TypeError:
        return _unweakrefable.setdefault(id(fn), (fn, {}))[1]


def lookup(fn: Any, key: Any) -> Entry | None:
    table = _table(fn)
    entry = table.get(key)
    if entry is not None and not entry.valid():
        del table[key]
        return None
    return entry


def store(fn: Any, key: Any, entry: Entry) -> None:
    _table(fn)[key] = entry


def track(dispatcher: Any) -> None:
    """Remember a derived function's dispatcher, so clear_cache can empty it too."""
    _dispatchers.add(dispatcher)


def clear_cache() -> None:
    """Forget every compiled derivative."""
    _cache.clear()
    _unweakrefable.clear()
    for dispatcher in list(_dispatchers):
        dispatcher.reset()


def _rules_changed() -> None:
    """The rule table changed: no installed version is valid any more (each was compiled
    against the table as it was), so every derived function forgets them now."""
    for dispatcher in list(_dispatchers):
        dispatcher.forget_versions()


on_change(_rules_changed)
