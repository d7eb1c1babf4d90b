"""Lowering calls of ``sg.checkpoint``-wrapped functions (API.md "Memory").

``sg.checkpoint(step)`` met in user code is a compile-time object; calling it lowers
``step`` as any call is lowered (inlined), then stamps the ops that call appended to the
current block with ``("primal", token, name)`` (``ir.core.CHECKPOINT``), one token per
call site. Nothing else changes here: forward mode and the primal ignore the mark, and
reverse mode (``ad/checkpoint.py``) recomputes the stamped ops before their adjoint
instead of keeping (or taping) their values.

    y = sg.checkpoint(step)(x)   ->   %y = tanh(x=%x)   {checkpoint: ("primal", 3, "step")}
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from ..ir.core import CHECKPOINT
from ..primitives import Checkpointed
from ..symbolic import is_symbolic

if TYPE_CHECKING:
    from .lower import Lowerer

_tokens = itertools.count(1)


def make(lw: Lowerer, args: list[Any], kwargs: dict[str, Any], node: Any) -> Checkpointed:
    """``sg.checkpoint(fn)`` inside the function being differentiated."""
    if len(args) != 1 or kwargs or is_symbolic(args):
        raise lw.err(node, "sg.checkpoint takes one function (a def, lambda or method) "
                     "known while compiling.", "Write sg.checkpoint(step)(x), or decorate "
                     "step with @sg.checkpoint.")
    return Checkpointed(args[0], compile_time=True)


def call(lw: Lowerer, func: Checkpointed, args: list[Any], kwargs: dict[str, Any],
         node: Any) -> Any:
    from .calls import call as lower_call  # calls imports this module

    block = lw.ctx.builder.block
    before = {id(op) for op in block.ops}
    out = lower_call(lw, func.fn, args, kwargs, node)
    if lw.ctx.builder.block is block:
        token = next(_tokens)
        name = getattr(func.fn, "__name__", None) or getattr(func.fn, "name", "function")
        for op in block.ops:
            # the ops the call added (the read of a global it made the function's first
            # is put at the top: it stays the caller's); an outer checkpoint takes over
            # the ops of one nested in it; constants are shared by the builder
            if id(op) not in before and op.prim not in ("const", "captured"):
                op.attrs[CHECKPOINT] = ("primal", token, name)
    return out
