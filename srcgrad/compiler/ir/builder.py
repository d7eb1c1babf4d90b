"""Building IR: the current insertion point, op creation, and copying.

Lowering and the AD transforms append ops through a :class:`Builder`; the symbolic tracer
(:mod:`srcgrad.compiler.symbolic`) finds the active builder with :func:`current`, which is
how a rule's VJP body called on symbolic values lands in the right block.

    with Builder(block, line=3) as b:
        y = b.emit("sin", {"x": x}).out
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .core import Block, Function, Op, Value, exact_key
from .types import ANY, AType, of_value

_stack: list[Builder] = []


class Builder:
    """Appends ops to ``block``; ``line`` is stamped on every op and value it creates."""

    def __init__(self, block: Block, line: int | None = None) -> None:
        self.block = block
        self.line = line
        self._consts: dict[tuple[type, Any], Value] = {}

    def __enter__(self) -> Builder:
        _stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _stack.pop()

    def emit(self, prim: str, args: dict[str, Any] | None = None, *,
             attrs: dict[str, Any] | None = None, types: list[AType] | None = None,
             name: str | None = None, n_out: int = 1) -> Op:
        types = types or [ANY] * n_out
        outs = [Value(name=name, line=self.line, type=t) for t in types[:n_out]]
        op = Op(prim, dict(args or {}), outs, dict(attrs or {}), line=self.line)
        self.block.ops.append(op)
        return op

    def const(self, value: Any) -> Value:
        """A ``const`` op for ``value`` (shared within this builder for hashable values)."""
        try:
            key = exact_key(value)
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._consts:
            return self._consts[key]
        v = self.emit("const", attrs={"value": value}, types=[of_value(value)]).out
        v.line = None
        v.op.line = None
        if key is not None:
            self._consts[key] = v
        return v

    @contextmanager
    def at_line(self, line: int | None) -> Iterator[None]:
        saved, self.line = self.line, line
        try:
            yield
        finally:
            self.line = saved


def current() -> Builder:
    if not _stack:
        raise RuntimeError("no IR builder is active")
    return _stack[-1]


def clone_block(block: Block, mapping: dict[Value, Value]) -> Block:
    """A deep copy of ``block``; ``mapping`` (old -> new value) is extended as it goes.

    Values not in ``mapping`` that the block reads from outside stay as they are.
    """
    def get(v: Any) -> Any:
        if isinstance(v, tuple):
            return tuple(get(x) for x in v)
        if isinstance(v, Value):
            return mapping.get(v, v)
        return v

    new = Block()
    for p in block.params:
        mapping[p] = Value(p.name, p.line, p.type)
        new.params.append(mapping[p])
    for op in block.ops:
        outs = []
        for o in op.outputs:
            mapping[o] = Value(o.name, o.line, o.type)
            outs.append(mapping[o])
        regions = [clone_block(r, mapping) for r in op.regions]
        args = {k: get(a) for k, a in op.args.items()}
        new.ops.append(Op(op.prim, args, outs, dict(op.attrs), regions, op.line))
    new.results = [get(r) for r in block.results]
    return new


def clone_function(fn: Function) -> tuple[Function, dict[Value, Value]]:
    """A deep copy of ``fn`` and the old -> new value mapping."""
    mapping: dict[Value, Value] = {}
    params = []
    for p in fn.params:
        mapping[p] = Value(p.name, p.line, p.type)
        params.append(mapping[p])
    body = clone_block(fn.body, mapping)
    copy = Function(fn.name, params, body, dict(fn.defaults), fn.filename, fn.firstlineno,
                    dict(fn.source_lines), dict(fn.meta), dict(fn.notes))
    return copy, mapping
