"""What the frontend evaluates while compiling: the one compile-time policy.

The frontend lowers a function by abstract interpretation (:mod:`.lower`): a value is
either known while compiling (a Python int, a list being built, a captured tuple) or a
:class:`~..symbolic.Sym` known only at run time. Whenever control flow depends on a value
known while compiling, the frontend may run it *now* instead of emitting a loop or branch
op. Every such decision is made here, by :data:`POLICY`, and each answer carries its
reason, which the emitted code shows after the user's line (``# line 12: for W, b in
layers:  (unrolled at compile time: 3 items, a list known while compiling)``, see
:meth:`CompileTimePolicy.note`) so a reader of ``srcgrad show`` knows why a loop is gone.

The rules:

- ``for`` (:meth:`~CompileTimePolicy.should_unroll_for`): unrolled when it iterates a
  Python list or tuple, a dict or its keys/values/items, ``enumerate``/``zip`` over such
  a container (its length is known), or a constant ``range`` whose body appends to a local
  list (the list's items are then known one by one). A constant ``range`` otherwise, an
  array, or a range with run-time bounds is a run-time loop (``for_range``).
- ``while`` (:meth:`~CompileTimePolicy.should_unroll_while`): each trip whose condition is
  known while compiling, and whose body has no ``break``/``continue``/``return``, runs now;
  the first condition known only at run time turns the rest into a ``while`` op (the trips
  before it are *peeled*).
- ``if``, ``x if c else y`` and ``assert`` (:meth:`~CompileTimePolicy.should_fold_if`):
  folded when the condition is known; a list's or tuple's truth is its length, known even
  when it holds run-time values (``if layers:``, ``while stack:``).
- builtins (:meth:`~CompileTimePolicy.should_run_builtin`): run now on known arguments,
  and ``len`` of a list or tuple always.
- calls (:meth:`~CompileTimePolicy.should_inline`): inlined while compiling, at most
  :data:`MAX_INLINE_DEPTH` deep; a function calling itself is called, never unrolled
  (:mod:`.recursion`).

Limits: :data:`MAX_UNROLL` iterations of one unrolled loop (beyond it the loop is refused
with advice: an unrolled loop that long is a program that should loop over an array).
"""

from __future__ import annotations

from collections.abc import ItemsView, KeysView, ValuesView
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..symbolic import is_symbolic
from .control import SymEnumerate, SymZip

if TYPE_CHECKING:
    from .context import Context

MAX_UNROLL = 10_000  # iterations of one loop run while compiling
MAX_INLINE_DEPTH = 40  # calls inlined inside each other (recursion unrolled)


@dataclass(frozen=True)
class Decision:
    """Whether to evaluate now, and why (a phrase shown to the user); truthy when ``now``."""

    now: bool
    reason: str
    items: list[Any] = field(default_factory=list)  # an unrolled for loop's items

    def __bool__(self) -> bool:
        return self.now


def known_condition(test: Any) -> bool:
    """Whether a condition's truth is known while compiling. A list or tuple is: Python
    takes its length, whatever values it holds."""
    return isinstance(test, (list, tuple)) or not is_symbolic(test)


def _describe(iterable: Any) -> str | None:
    if isinstance(iterable, list):
        return "a list known while compiling"
    if isinstance(iterable, tuple):
        return "a tuple known while compiling"
    if isinstance(iterable, (dict, KeysView, ValuesView, ItemsView)):
        return "a dict known while compiling"
    if isinstance(iterable, (set, frozenset)):  # (members are compile-time: hashed)
        return "a set known while compiling"
    if isinstance(iterable, (enumerate, zip)):
        return f"{type(iterable).__name__}() of values known while compiling"
    if isinstance(iterable, SymEnumerate):
        inner = _describe(iterable.inner)
        return None if inner is None or not isinstance(iterable.start, int) else \
            f"enumerate() over {inner}"
    if isinstance(iterable, SymZip):
        parts = [_describe(i) for i in iterable.items]
        if any(p is not None and not isinstance(i, range)
               for p, i in zip(parts, iterable.items)) and all(
                p is not None or isinstance(i, range) for p, i in zip(parts, iterable.items)):
            return "zip() over a list known while compiling"
    return None


def _items(iterable: Any) -> list[Any]:
    """The items of an iterable :func:`_describe` accepts."""
    if isinstance(iterable, SymEnumerate):
        return list(enumerate(_items(iterable.inner), iterable.start))
    if isinstance(iterable, SymZip):
        return list(zip(*[list(i) if isinstance(i, range) else _items(i)
                          for i in iterable.items]))
    return list(iterable)


def _trips(n: int) -> str:
    return f"{n} trip" if n == 1 else f"{n} trips"


class CompileTimePolicy:
    """The frontend's decisions to evaluate control flow while compiling (see the module
    docstring for the rules); every method answers a :class:`Decision` with its reason."""

    max_unroll = MAX_UNROLL

    def should_unroll_for(self, iterable: Any, appends_to_list: bool) -> Decision:
        """Unroll ``for target in iterable`` now? ``appends_to_list``: its body appends to
        a local list (a constant range then unrolls, so the list's items stay known)."""
        what = _describe(iterable)
        if what is not None:
            items = _items(iterable)
            return Decision(True, f"{_count(len(items), 'item')}, {what}", items)
        if isinstance(iterable, range) and appends_to_list:
            items = list(iterable)
            return Decision(True, f"{_count(len(items), 'iteration')}, {_range(iterable)} "
                            "known while compiling and its body appends to a list", items)
        return Decision(False, "its trip count is known only at run time"
                        if not isinstance(iterable, range) else
                        f"{_range(iterable)} runs as a loop (its body builds no list)")

    def too_long(self, n: int) -> str | None:
        """Why ``n`` iterations are too many to run while compiling, or None."""
        if n > self.max_unroll:
            return f"{n} iterations is more than the {self.max_unroll} srcgrad unrolls"
        return None

    def should_unroll_while(self, test: Any, body_exits: bool) -> Decision:
        """Run the next trip of a ``while`` now? ``test`` is its condition's value before
        the trip; ``body_exits``: its body has a ``break``,
        ``continue`` or ``return`` (then it is a run-time loop)."""
        if not known_condition(test):
            return Decision(False, "its condition is known only at run time")
        if body_exits:
            return Decision(False, "its body may break, continue or return")
        return Decision(True, "its condition is known while compiling")

    def while_note(self, trips: int, finished: bool) -> str | None:
        """What to show on a ``while`` line after ``trips`` trips ran now; ``finished``: the
        loop ended while compiling (else the rest runs as a loop)."""
        if finished:
            return f"unrolled at compile time: {_trips(trips)}, its condition known while " \
                "compiling"
        if trips:
            first = "first trip" if trips == 1 else f"first {trips} trips"
            return f"{first} peeled at compile time, where its condition was known; the " \
                "rest is a run-time loop"
        return None

    def should_fold_if(self, test: Any) -> Decision:
        """Pick an ``if``'s branch now (lowering only that one)?"""
        if not known_condition(test):
            return Decision(False, "its condition is known only at run time")
        return Decision(True, f"folded at compile time: the condition is {bool(test)} while "
                        "compiling")

    def should_run_builtin(self, name: str, args: list[Any], symbolic: bool) -> Decision:
        """Call a builtin now, on the arguments' compile-time values?"""
        if not symbolic:
            return Decision(True, "its arguments are known while compiling")
        if name == "len" and args and isinstance(args[0], (list, tuple)):
            return Decision(True, "a list's length is known while compiling")
        return Decision(False, "an argument is known only at run time")

    def should_call(self, recursive: bool) -> Decision:
        """Give a called user function its own emitted derivative functions (called, see
        :mod:`.recursion` and ``compiler/pairs.py``) instead of inlining it? A function
        calling itself always: inlining it would not end. Every other function is inlined:
        on the gradient of a 100-step RK4 of a 2-state ODE, its dynamics called 4 times per
        step (``benchmarks/pairs.py``), calling the dynamics' pair measured 0.97x-1.04x the
        inlined time (123-138 ms, 2 shared cores): no faster, while inlined code keeps
        what the caller knows (argument kinds and shapes, folded constants) and lets a
        second transform see through the call instead of going through the call's rules."""
        if recursive:
            return Decision(True, "a function calling itself is called, never unrolled")
        return Decision(False, "inlined: measured faster than calling its own pair")

    def should_inline(self, depth: int) -> Decision:
        """Inline one more call, ``depth`` calls deep already?"""
        if depth >= MAX_INLINE_DEPTH:
            return Decision(False, f"calls nested more than {MAX_INLINE_DEPTH} deep (a "
                            "recursion that does not end at compile time?)")
        return Decision(True, "a call is inlined while compiling")

    def unroll_note(self, decision: Decision) -> str:
        return f"unrolled at compile time: {decision.reason}"


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _range(r: range) -> str:
    return f"range({r.start}, {r.stop})" if r.step == 1 else \
        f"range({r.start}, {r.stop}, {r.step})"


POLICY = CompileTimePolicy()


def note(ctx: Context, line: int | None, end: int | None, text: str | None) -> None:
    """Record ``text`` for the emitted ``# line N`` comment of the construct spanning user
    lines ``line``..``end`` (the first reason given for a line is kept). Not in inlined
    code: its ops carry the caller's line, which the note would misdescribe."""
    if text is None or line is None or ctx.call_line is not None:
        return
    ctx.notes.setdefault(line, (end if end is not None else line, text))
