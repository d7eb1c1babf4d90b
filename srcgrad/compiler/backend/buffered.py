"""Backend: the statements of a derived function whose loop tape is kept between calls.

Where it sits: the emitter (``emit.py``) asks :class:`TapeBuffers` for the lines around
the function's body and for the expression of each op :mod:`..passes.tape_buffers`
picked; the run-time half, and why, is :mod:`..buffers`. An op picked keeps its plain
expression for the calls that run without buffers (arrays too small to be worth it)::

    buffers = _tape_buffers.take()
    ...
        q = xb @ Wq if buffers is None else buffers.into(0, np.matmul, xb, Wq)
    ...
    _tape_buffers.give(buffers)
    return dWq
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gast

from ..buffers import BufferPool
from ..ir.core import Function, Op
from ..passes.tape_buffers import buffered_ops
from .expressions import call_node
from .names import References, ValueNames
from .syntax import LOAD, dotted, load


class TapeBuffers:
    """The picked ops of one emitted function and the names of its pool and buffers."""

    def __init__(self, fn: Function, refs: References, enabled: bool) -> None:
        self.ops = buffered_ops(fn) if enabled else {}  # op id -> (slot, NumPy callable)
        self.refs = refs
        self.pool = self.name = ""
        if self.ops:
            self.pool = refs.place(BufferPool(len(self.ops)), "_tape_buffers",
                                   "buffers of the arrays its loops tape, kept between "
                                   "calls (srcgrad.compiler.buffers)")

    def prologue(self, names: ValueNames, indent: str) -> list[str]:
        """Taken on entry: this call owns them (named once the parameters are, so a
        parameter keeps its name)."""
        if not self.ops:
            return []
        self.name = names.fresh("buffers")
        return [f"{indent}{self.name} = {self.pool}.take()"]

    def epilogue(self, indent: str) -> list[str]:
        """Given back just before the return (a call that raises keeps them)."""
        return [f"{indent}{self.pool}.give({self.name})"] if self.ops else []

    def value(self, op: Op, plain: Any, expr: Callable[[Any], Any]) -> Any | None:
        """``op``'s value written into its kept buffer, or None when it is not picked:
        ``<plain> if buffers is None else buffers.into(slot, f, <operands>)``."""
        picked = self.ops.get(id(op))
        if picked is None:
            return None
        slot, f = picked
        into = call_node(gast.Attribute(value=load(self.name), attr="into", ctx=LOAD),
                         [gast.Constant(value=slot, kind=None), dotted(self.refs.ref(f)),
                          *(expr(op.args[k]) for k in op.args)])
        test = gast.Compare(left=load(self.name), ops=[gast.Is()],
                            comparators=[gast.Constant(value=None, kind=None)])
        return gast.IfExp(test=test, body=plain, orelse=into)
