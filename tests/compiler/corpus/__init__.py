"""The compiler's program corpus: small straight-line programs, organised as data.

Each program is a plain function in one of this package's modules plus a :class:`Program`
record saying how to call it: one :class:`F` (a differentiable float argument) or :class:`C`
(a constant: int, bool, index array) per positional parameter, which argument *kinds* apply,
what to differentiate (``wrt``) and with which transform (``grad`` or ``vjp``). The tests in
``tests/compiler/test_corpus*.py`` check every record against central finite differences
(``tests/fd.py``), for each kind, with ``optimize`` on and off.

Kinds say what type a float argument gets:

- ``float``: a Python float; ``np.float64`` / ``np.float32``: a NumPy scalar;
- ``0d``: a 0-d float64 array; ``nd``: a float64 array of the shape in its :class:`F`;
- ``nd32``: the same array in float32 (used by the gradient-type tests only).

The modules register their programs with :func:`program` when imported; :data:`PROGRAMS`
lists them all, in a stable order, once :func:`load` ran.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

SCALAR = ("float", "np.float64", "0d")
ALL = (*SCALAR, "nd")
ND = ("nd",)
PYFLOAT = ("float", "np.float64")  # math.* programs: Python-float semantics

MODULES = (
    "statements", "operators", "calls", "builtins_math", "subscripts", "methods",
    "np_elementwise", "np_reductions", "np_linalg", "np_shape", "transforms",
)


@dataclass(frozen=True)
class F:
    """A differentiable float argument: ``shape`` for the ``nd`` kind, values in [lo, hi]."""

    shape: tuple[int, ...] = (3,)
    lo: float = -1.5
    hi: float = 1.5
    distinct: bool = False  # values at least 0.05 apart (max/min/sort-like programs)
    kind: str | None = None  # always this kind, whatever the program's kind (mixed calls)

    def make(self, kind: str, rng: np.random.Generator) -> Any:
        kind = self.kind or kind
        shape = () if kind in SCALAR or kind == "np.float32" else self.shape
        values = rng.uniform(self.lo, self.hi, size=shape)
        if self.distinct and values.size > 1:
            # spread evenly over [lo, hi], then shuffle: no ties, no near-ties
            spread = np.linspace(self.lo, self.hi, values.size)
            spread += rng.uniform(-0.01, 0.01, size=values.size)
            values = rng.permutation(spread).reshape(shape)
        if kind == "float":
            return float(values)
        if kind == "np.float64":
            return np.float64(values)
        if kind == "np.float32":
            return np.float32(values)
        if kind == "nd32":
            return np.asarray(values, dtype=np.float32)
        return np.asarray(values, dtype=np.float64)


@dataclass(frozen=True)
class C:
    """A constant argument passed as is (or built by calling ``value`` with the kind)."""

    value: Any

    def make(self, kind: str, rng: np.random.Generator) -> Any:
        return self.value(kind) if callable(self.value) else self.value


@dataclass(frozen=True)
class Program:
    """One corpus entry: ``fn`` plus how to call and differentiate it."""

    fn: Callable[..., Any]
    params: tuple[F | C, ...]
    kinds: tuple[str, ...] = ALL
    wrt: Any = 0
    kw: dict[str, F | C] = field(default_factory=dict)  # passed by keyword
    transform: str = "grad"  # or "vjp" (seed shaped like the result; a tuple for a tuple)
    expected: Callable[..., Any] | None = None  # exact gradient where FD does not apply
    setup: Callable[[], None] | None = None  # run before differentiating (defvjp, ...)
    note: str = ""

    @property
    def name(self) -> str:
        return self.fn.__name__

    def make_args(self, kind: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Arguments of ``kind``, the same on every call (seeded by the program's name)."""
        rng = np.random.default_rng(zlib.crc32(f"{self.name}/{kind}".encode()))
        args = tuple(p.make(kind, rng) for p in self.params)
        kwargs = {k: p.make(kind, rng) for k, p in self.kw.items()}
        return args, kwargs

    def derive(self, optimize: bool = True) -> Callable[..., Any]:
        """The derived function under test: ``sg.grad`` or ``sg.vjp`` of ``fn``."""
        import srcgrad as sg  # here, so importing the corpus never needs the compiler

        if self.setup is not None:
            self.setup()
        transform = sg.vjp if self.transform == "vjp" else sg.grad
        return transform(self.fn, wrt=self.wrt, optimize=optimize)

    def seed_for(self, args: tuple[Any, ...], kwargs: dict[str, Any], kind: str) -> Any:
        """The cotangent a ``vjp`` program is called with; None for ``grad`` programs."""
        if self.transform != "vjp":
            return None
        return self.make_seed(self.fn(*args, **kwargs), kind)

    def call(self, derived: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any], seed: Any) -> tuple[Any, ...]:
        """Call ``derived``; the gradients as a tuple, one per ``wrt`` entry."""
        result = derived(*args, seed, **kwargs) if self.transform == "vjp" else derived(
            *args, **kwargs)
        if isinstance(self.wrt, tuple):
            assert isinstance(result, tuple), f"wrt={self.wrt!r} must give a tuple: {result!r}"
            assert len(result) == len(self.wrt), f"wrt={self.wrt!r}: got {len(result)} results"
            return result
        assert not isinstance(result, tuple), f"wrt={self.wrt!r} must give one gradient"
        return (result,)

    def make_seed(self, out: Any, kind: str) -> Any:
        """A fixed, generic cotangent shaped like ``out`` (vjp programs)."""
        rng = np.random.default_rng(zlib.crc32(f"{self.name}/seed/{kind}".encode()))
        if isinstance(out, tuple):
            return tuple(_seed_like(o, rng) for o in out)
        return _seed_like(out, rng)


def _seed_like(out: Any, rng: np.random.Generator) -> Any:
    values = rng.uniform(0.5, 1.5, size=np.shape(out))
    if isinstance(out, np.generic):  # before float: np.float64 is a float subclass
        return type(out)(values)
    if isinstance(out, float):
        return float(values)
    return np.asarray(values, dtype=np.result_type(out, np.float32))


PROGRAMS: list[Program] = []


def program(*params: F | C, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register the decorated function as a corpus program; returns it unchanged."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        PROGRAMS.append(Program(fn=fn, params=params, **options))
        return fn

    return register


def pending_marks(pending: dict[str, str], program: Program, kind: str) -> list[Any]:
    """A strict xfail mark when ``pending`` names the program (or ``name[kind]``)."""
    import pytest

    reason = pending.get(f"{program.name}[{kind}]") or pending.get(program.name)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def load() -> list[Program]:
    """Import every corpus module (registering its programs) and return the list."""
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
    names = [p.name for p in PROGRAMS]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"corpus program names must be unique: {duplicates}"
    return PROGRAMS
