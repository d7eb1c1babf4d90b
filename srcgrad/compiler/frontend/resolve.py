"""Name resolution at compile time: closure cells, module globals, builtins.

Names that are not local to the function being lowered are looked up once, while
compiling; the value found is baked into the IR (a function to inline, a module, a
constant) and the lookup is recorded as a :class:`Dependency`, so the cache can rebuild
the derivative when the name is later rebound (``f.__globals__['helper'] = other``).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class Dependency:
    """``where[name]`` was ``obj`` when compiling.

    ``where`` is a namespace dict, a closure cell (``name`` is the free variable) or, for
    ``kind="attr"``, an object whose attribute ``name`` it was (a callee's
    ``__defaults__``).
    """

    where: Any
    name: str
    obj: Any
    kind: str = "item"

    def still_valid(self) -> bool:
        if self.kind == "attr":
            return getattr(self.where, self.name, _MISSING) is self.obj
        if isinstance(self.where, dict):
            return self.where.get(self.name, _MISSING) is self.obj
        try:
            return self.where.cell_contents is self.obj
        except ValueError:  # an empty cell
            return False


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
            deps.append(Dependency(cell, name, value))
            return value
        if name in self.globals:
            value = self.globals[name]
            deps.append(Dependency(self.globals, name, value))
            return value
        return getattr(builtins, name, _MISSING)


MISSING = _MISSING
