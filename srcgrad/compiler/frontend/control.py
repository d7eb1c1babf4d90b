"""Control flow lowering, shared parts: block switching, syntax scans, exit signals.

A condition known at compile time just picks the code to lower (:mod:`.policy` decides
which: loops over Python lists, constant ranges that build lists, ...). A condition known
only at run time becomes a structured op holding blocks (DESIGN.md principle 5): ``if``
(:mod:`.branches`), ``for_range`` and ``while`` (:mod:`.loops`). Loop-carried values are
the variables the body assigns that exist before the loop; their types are joined over
iterations (``total = 0`` then ``total = total + x[i]`` is a float).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gast

from ..ir import types as T
from ..ir.builder import Builder, _stack
from ..ir.core import Block
from ..structure import is_user_dataclass, make_dataclass

if TYPE_CHECKING:
    from .lower import Lowerer

_MUTATORS = ("append", "extend", "insert", "pop")


class ReturnSignal(Exception):
    """Raised by a ``return`` to end the lowering of a statement list."""

    def __init__(self, value: Any) -> None:
        self.value = value


class LoopExit(Exception):
    """``break`` (``kind="break"``) or ``continue`` met while unrolling a loop."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


@dataclass
class SymRange:
    """``range(start, stop, step)`` with bounds known only at run time."""

    srcgrad_unpassable = "a range whose bounds are known only at run time"

    start: Any
    stop: Any
    step: Any = 1


class Collector(list):
    """Stands for a list inside the body of a run-time loop that appends to it; remembers
    the block each append was lowered into (it must be the loop body itself)."""

    def append(self, item: Any) -> None:
        from ..ir.builder import current

        self.blocks = [*getattr(self, "blocks", []), current().block]
        super().append(item)


@dataclass
class RunList:
    """A list built by a run-time loop (``hs.append(h)``): read as the array it makes
    where NumPy reads an array, by ``len``, ``sum``, ``min``, ``max`` (see calls.py)."""

    value: Any
    # what symbolic.to_value says when one is passed where it cannot go (never a const)
    srcgrad_unpassable = "a list built by a loop with a run-time trip count"


@dataclass
class SymEnumerate:
    """``enumerate(inner, start)`` over something iterated at run time."""

    srcgrad_unpassable = "enumerate() over values known only at run time"

    inner: Any
    start: Any = 0


@dataclass
class SymZip:
    items: tuple[Any, ...]

    srcgrad_unpassable = "zip() over values known only at run time"


# --- syntax scans ------------------------------------------------------------------------

def _walk(nodes: list[Any]) -> Iterator[Any]:
    """Every node in ``nodes``, not descending into nested functions."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue  # its name is bound here; its body runs when it is called
        stack.extend(gast.iter_child_nodes(node))


def assigned_names(stmts: list[Any]) -> list[str]:
    names: dict[str, None] = {}
    for node in _walk(stmts):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names[node.id] = None
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) \
                and isinstance(node.value, gast.Name):
            names[node.value.id] = None
        elif isinstance(node, gast.FunctionDef):
            names[node.name] = None
    return list(names)


def contains(stmts: list[Any], kinds: tuple[type, ...]) -> bool:
    return any(isinstance(n, kinds) for n in _walk(stmts))


def mutated_lists(lw: Lowerer, stmts: list[Any]) -> list[str]:
    out = []
    for node in _walk(stmts):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _MUTATORS and isinstance(node.func.value, gast.Name):
            held = lw.env.get(node.func.value.id)
            if isinstance(held, list):
                out.append(node.func.value.id)
    return out


# --- blocks --------------------------------------------------------------------------------

@contextmanager
def in_block(lw: Lowerer, block: Block, env: dict[str, Any]) -> Iterator[Builder]:
    """Lower into ``block`` with environment ``env`` (restored afterwards)."""
    ctx = lw.ctx
    saved_builder, saved_env = ctx.builder, lw.env
    builder = Builder(block, line=saved_builder.line)
    ctx.builder, lw.env = builder, env
    _stack.append(builder)
    try:
        yield builder
    finally:
        _stack.pop()
        ctx.builder, lw.env = saved_builder, saved_env


def join_types(a: T.AType | None, b: T.AType | None) -> T.AType:
    a, b = a or T.ANY, b or T.ANY
    if a == b:
        return a
    if {a.kind, b.kind} <= {"int", "float", "bool"}:
        return T.FLOAT if "float" in (a.kind, b.kind) else T.INT
    if _float_number(a) and _float_number(b):  # a Python float or a float64 NumPy scalar
        return T.NUMBER
    return T.ANY


def _float_number(t: T.AType) -> bool:
    return t.kind == "float" or t == T.NUMBER or (t.kind == "scalar" and t.dtype == "float64")


def flatten(value: Any) -> tuple[list[Any], Any]:
    """The leaves of a (nested) tuple, list, dict or namedtuple and its shape, to rebuild
    it with :func:`unflatten`. Containers never cross a block boundary as IR values: an
    ``if`` or loop yields their leaves, so derivatives flow through each one. A dict's
    shape carries its keys, a namedtuple's its class (a third item)."""
    t = type(value)
    record = is_user_dataclass(value)
    if t in (tuple, list, dict) or (issubclass(t, tuple) and hasattr(t, "_fields")) or record:
        names = tuple(f.name for f in dataclasses.fields(value)) if record else ()
        items = list(value.values()) if t is dict else \
            [getattr(value, n) for n in names] if record else list(value)
        leaves: list[Any] = []
        shapes = []
        for item in items:
            item_leaves, item_shape = flatten(item)
            leaves += item_leaves
            shapes.append(item_shape)
        if t is dict:
            return leaves, ("dict", tuple(shapes), tuple(value))
        if record:  # a dataclass instance built in the function
            return leaves, ("dataclass", tuple(shapes), (t, names))
        if t not in (tuple, list):
            return leaves, ("tuple", tuple(shapes), t)
        return leaves, ("tuple" if t is tuple else "list", tuple(shapes))
    return [value], None


def unflatten(leaves: list[Any], shape: Any) -> Any:
    return _unflatten(iter(leaves), shape)


def _unflatten(leaves: Iterator[Any], shape: Any) -> Any:
    if shape is None:
        return next(leaves)
    items = [_unflatten(leaves, s) for s in shape[1]]
    if shape[0] == "dict":
        return dict(zip(shape[2], items))
    if shape[0] == "dataclass":
        return make_dataclass(*shape[2], items)
    if len(shape) > 2:  # a namedtuple
        return shape[2](*items)
    return tuple(items) if shape[0] == "tuple" else items


def leaf_count(shape: Any) -> int:
    return 1 if shape is None else sum(leaf_count(s) for s in shape[1])


def describe_shape(shape: Any) -> str:
    """``shape`` as the user wrote it: ``(_, _)``, ``[_, (_, _)]``, ``a value``."""
    if shape is None:
        return "_"
    if shape[0] == "dataclass":
        return f"{shape[2][0].__name__}(" + ", ".join(
            f"{k}={describe_shape(s)}" for k, s in zip(shape[2][1], shape[1])) + ")"
    if shape[0] == "dict":
        return "{" + ", ".join(f"{k!r}: {describe_shape(s)}"
                               for k, s in zip(shape[2], shape[1])) + "}"
    inner = ", ".join(describe_shape(s) for s in shape[1])
    if shape[0] == "tuple":
        return f"({inner},)" if len(shape[1]) == 1 else f"({inner})"
    return f"[{inner}]"


def exits_in(stmts: list[Any]) -> set[str]:
    """``{"break", "continue"}`` met in ``stmts`` for their own loop (not nested loops)."""
    found: set[str] = set()
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Break):
            found.add("break")
        elif isinstance(node, gast.Continue):
            found.add("continue")
        elif not isinstance(node, (gast.For, gast.While, gast.FunctionDef, gast.Lambda)):
            stack.extend(gast.iter_child_nodes(node))
    return found


def no_exit(lw: Lowerer, stmts: list[Any], where: str) -> None:
    """Lower a block inside a run-time branch or loop body: ``break``/``continue`` set the
    innermost run-time loop's flags (:func:`.loop_exits.lower_guarded`), ``return`` is refused."""
    flags = lw.ctx.loop_flags[-1] if lw.ctx.loop_flags else None
    if flags:
        lw.lower_guarded(stmts, flags)
        return
    for stmt in stmts:
        try:
            lw.stmt(stmt)
        except LoopExit as e:
            raise lw.err(stmt, f"`{e.kind}` {where} is not supported yet.",
                         "Restructure the loop with a condition in the loop header.") from None
        except ReturnSignal:
            raise lw.err(stmt, f"`return` {where} is not supported yet.",
                         "Assign the result to a variable and return after the loop.") from None


