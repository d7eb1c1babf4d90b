"""What compiled code assumes about a captured value (DESIGN.md principle 11).

Name resolution (:mod:`.resolve`) records, for each free name it resolved, a
:class:`~.resolve.Dependency` whose *fact* is what the compilation specialised on. The cache
checks it with :meth:`Fact.holds` and the derived function's generated guard with the text
of :meth:`Fact.guard`, on every call, so both must stay cheap:

- an array of numbers or bools is read when the derivative runs; the code specialised on
  its type, ndim and dtype (:class:`ArrayOf`), like an argument's (an array of str or
  objects is not differentiable data: a compile-time object, by identity);
- a Python float or complex or a NumPy scalar is read at run time too; only its type is a
  fact (:class:`TypeIs`), never its value, so no captured number becomes a literal;
- an int, bool, str or None is a compile-time value (``range(N)`` unrolls, ``if DEBUG:``
  is decided): the fact is its type and value (:class:`ValueIs`);
- a tuple, list or dict is a compile-time container (its length or keys are the fact,
  :class:`Shaped`) whose items have facts of their own, as above;
- anything else (a function, a module, a class) is inlined or called by identity: no fact,
  the dependency checks ``is``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_ITEMS = 64  # items of a captured container mirrored item by item (each is guarded)
Namer = Callable[[Any], str]  # binds an object in the guard's namespace, returns its name


@dataclass(frozen=True)
class ArrayOf:
    """An ndarray of this ndim and dtype (its values and shape are read at run time)."""

    ndim: int
    char: str

    def holds(self, value: Any) -> bool:
        return type(value) is np.ndarray and value.ndim == self.ndim \
            and value.dtype.char == self.char

    def guard(self, first: str, again: str, name: Namer) -> str:
        return (f"type({first}) is {name(np.ndarray)} and {again}.ndim == {self.ndim} and "
                f"{again}.dtype.char == {self.char!r}")


@dataclass(frozen=True)
class TypeIs:
    """A number of exactly this type (float, complex, a NumPy scalar type)."""

    cls: type

    def holds(self, value: Any) -> bool:
        return type(value) is self.cls

    def guard(self, first: str, again: str, name: Namer) -> str:
        return f"type({first}) is {name(self.cls)}"


@dataclass(frozen=True)
class ValueIs:
    """An int, bool, str or None the compiled code used as a compile-time constant."""

    cls: type
    value: Any

    def holds(self, value: Any) -> bool:
        return type(value) is self.cls and value == self.value

    def guard(self, first: str, again: str, name: Namer) -> str:
        if self.value is None or self.cls is bool:
            return f"{first} is {self.value!r}"
        return f"type({first}) is {name(self.cls)} and {again} == {self.value!r}"


@dataclass(frozen=True)
class Shaped:
    """A tuple or list of this length, or a dict with these keys in this order, whose
    items have facts of their own (read through their paths)."""

    cls: type
    keys: tuple[Any, ...]

    def holds(self, value: Any) -> bool:
        return type(value) is self.cls and _keys(value) == self.keys

    def guard(self, first: str, again: str, name: Namer) -> str:
        if self.cls is dict:
            return f"type({first}) is dict and tuple({again}) == {self.keys!r}"
        return f"type({first}) is {self.cls.__name__} and len({again}) == {len(self.keys)}"


def _keys(value: Any) -> tuple[Any, ...]:
    return tuple(value) if type(value) is dict else tuple(range(len(value)))


Fact = ArrayOf | TypeIs | ValueIs | Shaped


def read_at_run_time(value: Any) -> bool:
    """Is ``value`` data the emitted code reads when it runs (never a literal)?"""
    t = type(value)
    if t is np.ndarray:  # numbers and bools (an array of str or objects is not data here)
        return value.dtype.kind in "biufc"
    return t is float or t is complex or isinstance(value, np.number)


def fact_of(value: Any) -> Fact | None:
    """What compiling against ``value`` specialises on (None: its identity)."""
    t = type(value)
    if read_at_run_time(value) and t is np.ndarray:
        return ArrayOf(value.ndim, value.dtype.char)
    if read_at_run_time(value):
        return TypeIs(t)
    if value is None or t in (int, bool, str):
        return ValueIs(t, value)
    if t in (tuple, list, dict):
        n = item_count(value)
        return Shaped(t, _keys(value)) if n is not None and n <= MAX_ITEMS else None
    return None


def item_count(value: Any) -> int | None:
    """Items in a (nested) tuple, list or dict, counted up to just past MAX_ITEMS; None if
    a dict key is not an int or str (no guard can spell it)."""
    t = type(value)
    if t not in (tuple, list, dict):
        return 1
    if t is dict and not all(type(k) in (int, str) for k in value):
        return None
    total = 0
    for item in (value.values() if t is dict else value):
        n = item_count(item)
        if n is None:
            return None
        total += n
        if total > MAX_ITEMS:
            break
    return total
