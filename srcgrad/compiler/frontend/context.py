"""State shared while lowering one user function and everything inlined into it.

Also the frontend's vocabulary of compile-time objects: :class:`LocalFunction` (a nested
``def`` or ``lambda``), :class:`BoundMethod` (``x.sum`` before it is called) and the
storage-root bookkeeping the aliasing rule of API.md §1 needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from srcgrad.errors import SrcGradError

from ..ir.builder import Builder
from ..ir.core import Block, Value
from .resolve import Dependency, Scope
from .source import Parsed


@dataclass
class Context:
    builder: Builder
    deps: list[Dependency] = field(default_factory=list)
    roots: dict[int, Value] = field(default_factory=dict)  # value id -> storage root
    argument_ids: set[int] = field(default_factory=set)  # roots that are the caller's data
    # containers the function was given (structured arguments, captured ones), by id;
    # held here so no id is reused by a container the function builds while lowering
    argument_containers: dict[int, Any] = field(default_factory=dict)
    depth: int = 0
    call_line: int | None = None  # when inlining: the caller's line, stamped on ops
    call_file: str | None = None  # ... and the file that line is in (the user's)
    helpers: list[Any] = field(default_factory=list)  # derived functions called (for source)
    # per enclosing loop being lowered: {"break": flag name, ...} for a run-time loop,
    # None for a loop being unrolled (its break/continue are decided at compile time)
    loop_flags: list[dict[str, str] | None] = field(default_factory=list)
    flag_count: int = 0
    # (flag, value) of a loop that may return; flag None: it can end only by returning
    loop_return: tuple[str | None, str] | None = None
    code_stack: list[Any] = field(default_factory=list)  # functions being inlined
    entry: Block | None = None  # the function's body: where captured values are read
    captured: dict[Any, Any] = field(default_factory=dict)  # captured.Source -> its Sym
    captured_ids: set[int] = field(default_factory=set)  # values read by `captured` ops
    # user line -> (last line, why it was evaluated while compiling): see .policy.note
    notes: dict[int, tuple[int, str]] = field(default_factory=dict)
    # id of the plain list/tuple a tuple-returning call made -> (it, "np.split"), for
    # messages (frontend/multicalls.py); held so the id is not reused
    made_by: dict[int, tuple[Any, str]] = field(default_factory=dict)

    def root(self, v: Value) -> Value:
        return self.roots.get(v.id, v)

    def owner(self, root: Value) -> str:
        """Whose array ``root`` (one of ``argument_ids``) is, for messages."""
        if root.id in self.captured_ids:
            return "the captured array (a global, closure or default value)"
        return "the caller's array"

    def copy_advice(self, root: Value) -> str:
        # a captured name cannot be rebound in the function (it would become a local)
        name = root.name
        return f"buf = {name}.copy()" if root.id in self.captured_ids else \
            f"{name} = {name}.copy()"

    def note_view(self, out: Value, src: Value) -> None:
        self.roots[out.id] = self.root(src)


@dataclass
class LocalFunction:
    """A ``def`` or ``lambda`` met while lowering; lowered (inlined) where it is called."""

    node: Any
    parsed: Parsed
    scope: Scope
    envs: list[dict[str, Any]]  # enclosing local environments, innermost first
    defaults: list[Any]
    name: str
    # keyword-only parameters' defaults (``def g(a, *rest, scale=2.0)``), evaluated where
    # the def stands, as Python does
    kw_defaults: dict[str, Any] = field(default_factory=dict)


@dataclass
class BoundMethod:
    """``obj.name`` of a symbolic value, waiting for its call."""

    obj: Any
    name: str


def error(parsed: Parsed, node: Any, message: str, advice: str | None = None) -> SrcGradError:
    return SrcGradError(message, filename=parsed.filename, lineno=parsed.file_line(node),
                        advice=advice)
