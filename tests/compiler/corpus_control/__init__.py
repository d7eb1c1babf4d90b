"""The compiler's control-flow corpus (issue 5): programs with if/elif/else, loops, while,
break/continue/return, subscript writes, appended lists and recursion, organised as data.

Each program is a plain function in one of this package's modules plus a :class:`Program`
record. Control flow needs chosen inputs rather than random ones (both sides of every
branch, zero-trip loops, ``while`` trip counts 0, 1 and many), so a record lists named
*cases*: the exact positional arguments of one call. Inputs stay well away from branch
thresholds, so the path taken does not change under a finite-difference step.

``tests/compiler/test_corpus_control.py`` checks every case against central finite
differences (``tests/fd.py``) with ``optimize`` on and off, checks forward mode
against reverse mode, and checks that the cases together take both sides of every ``if``
and ``while`` in the program's source.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

MODULES = ("branches", "loops", "jumps", "writes")

# Shared inputs: no element near a branch threshold any program uses.
X3 = np.array([0.3, -0.5, 0.8])
X5 = np.array([0.7, -0.2, 0.45, -0.9, 0.25])
M23 = np.array([[0.5, -0.3, 0.9], [-0.7, 0.2, 0.4]])
M34 = np.array([[0.1, 0.6, -0.4, 0.3], [0.8, -0.2, 0.5, -0.6],
                [-0.3, 0.7, 0.2, 0.9]])
W33 = np.array([[0.4, -0.2, 0.1], [0.3, 0.5, -0.4], [-0.1, 0.2, 0.6]])
T234 = np.arange(24.0).reshape(2, 3, 4) / 24.0 - 0.45


@dataclass(frozen=True)
class Program:
    """One corpus entry: ``fn``, the calls to check it on, and what to differentiate."""

    fn: Callable[..., Any]
    cases: dict[str, tuple[Any, ...]]  # case label -> positional arguments
    wrt: Any = 0
    transform: str = "grad"  # or "vjp" for a program whose result is not one number

    @property
    def name(self) -> str:
        return self.fn.__name__

    def args(self, case: str) -> tuple[Any, ...]:
        """Fresh copies of the case's arguments (a derived function must not change them)."""
        return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in self.cases[case])

    def places(self) -> tuple[int, ...]:
        return self.wrt if isinstance(self.wrt, tuple) else (self.wrt,)


PROGRAMS: list[Program] = []


def program(wrt: Any = 0, transform: str = "grad",
            **cases: tuple[Any, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register the decorated function with its named cases; returns it unchanged."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        assert cases, f"{fn.__name__}: a program needs at least one case"
        PROGRAMS.append(Program(fn=fn, cases=cases, wrt=wrt, transform=transform))
        return fn

    return register


def load() -> list[Program]:
    """Import every corpus module (registering its programs) and return the list."""
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
    names = [p.name for p in PROGRAMS]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"control corpus program names must be unique: {duplicates}"
    return PROGRAMS
