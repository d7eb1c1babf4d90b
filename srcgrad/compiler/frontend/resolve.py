"""Name resolution at compile time: closure cells, module globals, builtins.

Names that are not local to the function being lowered are looked up while compiling.
What is found is either used at compile time (a function to inline, a module, an int or
str) or, for data (arrays, floats), read again by the emitted code each time it runs (see
:mod:`.captured`). Either way the lookup is recorded as a :class:`Dependency` with the
:mod:`.facts` the compilation assumed, so the cache and the derived function's guard
recompile when the name is rebound to something else (``f.__globals__['helper'] = other``,
an array of another dtype) but not when only the data changed.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from .facts import Fact, fact_of

_MISSING = object()


class Attr:
    """A step of a captured value's path that reads an attribute (``model.W``), where the
    other steps index (``ROWS[0]``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attr) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("attr", self.name))

    def __repr__(self) -> str:
        return f".{self.name}"

    def __str__(self) -> str:
        return self.name


def path_text(path: tuple[Any, ...]) -> str:
    """The Python text of reading ``path`` (``.W[0]['b']``)."""
    return "".join(repr(k) if isinstance(k, Attr) else f"[{k!r}]" for k in path)


def step(value: Any, key: Any) -> Any:
    """One step of a path: an attribute for :class:`Attr`, else an index."""
    return getattr(value, key.name) if isinstance(key, Attr) else value[key]


@dataclass(frozen=True)
class Dependency:
    """``where[name]`` was ``obj`` when compiling.

    ``where`` is a namespace dict, a closure cell (``name`` is the free variable) or, for
    ``kind="attr"``, an object whose attribute ``name`` it was (a callee's
    ``__defaults__``). ``path`` indexes into that value (an item of a captured tuple,
    list or dict: ``ROWS[0]``). ``fact`` is what the compilation assumed about the value
    (None: that it is this very object).
    """

    where: Any
    name: str
    obj: Any
    kind: str = "item"
    fact: Fact | None = None
    path: tuple[Any, ...] = ()

    def current(self) -> Any:
        """What ``where[name][path...]`` holds now (``MISSING`` if nothing)."""
        if self.kind == "attr":
            value = getattr(self.where, self.name, _MISSING)
        elif isinstance(self.where, dict):
            value = self.where.get(self.name, _MISSING)
        else:
            try:
                value = self.where.cell_contents
            except ValueError:  # an empty cell
                return _MISSING
        for key in self.path:
            try:
                value = step(value, key)
            except (LookupError, TypeError, AttributeError):
                return _MISSING
        return value

    def still_valid(self) -> bool:
        now = self.current()
        return now is self.obj if self.fact is None else self.fact.holds(now)


@dataclass
class Scope:
    """Where a function's free names come from."""

    globals: dict[str, Any]
    closure: dict[str, Any]  # free variable name -> cell

    @classmethod
    def of(cls, fn: Any) -> Scope:
        code = fn.__code__
        cells = fn.__closure__ or ()
        return cls(fn.__globals__, dict(zip(code.co_freevars, cells)))

    def lookup(self, name: str, deps: list[Dependency]) -> Any:
        """The value of free name ``name``, or ``_MISSING``; records the dependency."""
        if name in self.closure:
            cell = self.closure[name]
            try:
                value = cell.cell_contents
            except ValueError:
                return _MISSING
            deps.append(_dependency(cell, name, value))
            return value
        if name in self.globals:
            value = self.globals[name]
            deps.append(_dependency(self.globals, name, value))
            return value
        value = getattr(builtins, name, _MISSING)
        if value is not _MISSING:
            # a builtin: read so only while the module has no global of that name (one
            # defined later, ``abs = my_abs``, shadows it for the user's function)
            deps.append(Dependency(self.globals, name, _MISSING))
        return value

    def where(self, name: str) -> tuple[Any, str]:
        """Where free name ``name`` is read from: (its cell, "cell") or (globals, "global")."""
        if name in self.closure:
            return self.closure[name], "cell"
        return self.globals, "global"


def _dependency(where: Any, name: str, value: Any) -> Dependency:
    fact = fact_of(value)
    # with a fact, the dependency does not keep the value (a large array) alive
    return Dependency(where, name, value if fact is None else None, fact=fact)


MISSING = _MISSING
