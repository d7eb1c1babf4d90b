"""Which arrays a loop tapes may be written into buffers kept between calls.

Where it sits: an analysis, not a rewrite. The emitter (``backend/emit.py``) asks it for
the function it emits, when optimising; the IR is left as it is (a transform composed on
the derivative never sees the choice). The run-time half is :mod:`..buffers`, which says
why (a tape freed at the end of every call is page-faulted back in by the next).

An op is picked when it makes, in a loop body, a matrix (typed an array of two axes or
more) that the body pushes on a tape, directly or as its transpose, and it is
``np.matmul`` or a ufunc of the rule table (``np.exp``, ``p / z``...), not an update in
place; and when nothing keeps that array past the call: every read of it, of its views
and of the values the reverse loop pops for it makes a new array (an arithmetic rule, a
matmul, a reduction, ``np.shape``) or a view read the same way, never a result of a block
(a loop's carried value, a branch's output, the function's results), never the operand an
update in place writes (``dp -= t``, a row write), and its tape is made once at the top
of the function and only pushed and popped there. Before and after, in emitted code::

    for i in range(_t3):                        for i in range(_t3):
        q = xb @ Wq                                 q = buffers.into(0, np.matmul, xb, Wq)
        ...                                         ...
        p_1 = p / _t6                               p_1 = buffers.into(1, np.divide, p, _t6)
        tape.append((p_1, q, ...))                  tape.append((p_1, q, ...))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value
from ..rows import IN_PLACE_FORMS
from .blocks import popped_items

_LOOPS = ("for_range", "while")
# readers whose result is never their operand nor a view of it (besides fresh rules)
_NEW_RESULT = frozenset({"sum", "mean", "prod", "max", "min", "shape"})
_PASS_THROUGH = frozenset({"alias", "stop_gradient"})
_TAPE_READERS = frozenset({"tape_push", "tape_pop", "tape_len"})


def buffered_ops(fn: Function) -> dict[int, tuple[int, Any]]:
    """``id(op)`` -> (slot, the NumPy callable) for each op whose array may be written into
    a kept buffer; slots are numbered in program order."""
    readers, in_results = _reads(fn)
    tapes = _private_tapes(fn, readers, in_results)
    if not tapes:
        return {}
    pops = _pops_of_items(fn)
    picked: dict[int, Any] = {}
    for loop in fn.body.walk():
        if loop.prim not in _LOOPS:
            continue
        for body in loop.regions:
            for push in body.ops:
                if push.prim != "tape_push" or push.args["tape"].id not in tapes:
                    continue
                for item in push.args["items"]:
                    op = _maker(item, body)
                    f = _buffered_callable(op) if op is not None else None
                    if f is None or id(op) in picked:
                        continue
                    if _dead_at_return(op.out, readers, in_results, pops, tapes, set()):
                        picked[id(op)] = f
    order = [id(op) for op in fn.body.walk() if id(op) in picked]
    return {key: (slot, picked[key]) for slot, key in enumerate(order)}


def _reads(fn: Function) -> tuple[dict[int, list[Op]], set[int]]:
    """Value id -> the ops reading it (anywhere); ids of every block's results."""
    readers: dict[int, list[Op]] = {}
    for op in fn.body.walk():
        for v in op.operands():
            readers.setdefault(v.id, []).append(op)
    in_results: set[int] = set()
    blocks: list[Block] = [fn.body]
    while blocks:
        block = blocks.pop()
        in_results.update(v.id for v in block.results if isinstance(v, Value))
        blocks.extend(r for op in block.ops for r in op.regions)
    return readers, in_results


def _private_tapes(fn: Function, readers: dict[int, list[Op]], in_results: set[int]
                   ) -> set[int]:
    """Tapes made at the top of the function and only pushed, popped and measured."""
    out = set()
    for op in fn.body.ops:
        if op.prim != "tape_new":
            continue
        t = op.out
        if t.id in in_results:
            continue
        if all(r.prim in _TAPE_READERS and r.args.get("tape") is t
               and not any(v is t for k, v in r.args.items() if k != "tape")
               for r in readers.get(t.id, [])):
            out.add(t.id)
    return out


def _pops_of_items(fn: Function) -> dict[int, list[Value]]:
    """Pushed item id -> the values popped for it (tapes of one push and one pop)."""
    out: dict[int, list[Value]] = {}
    popped = popped_items(fn)
    for op in fn.body.walk():
        if op.prim == "tape_pop":
            for o in op.outputs:
                item = popped.get(o.id)
                if isinstance(item, Value):
                    out.setdefault(item.id, []).append(o)
    return out


def _maker(item: Any, body: Block) -> Op | None:
    """The op of ``body`` making the array ``item`` is (or is the transpose of)."""
    while isinstance(item, Value) and item.op is not None and item.op.prim == "transpose" \
            and any(o is item.op for o in body.ops):
        item = item.op.args["x"]
    if not isinstance(item, Value) or item.op is None \
            or not any(o is item.op for o in body.ops):
        return None
    return item.op


def _buffered_callable(op: Op) -> Any:
    """``np.matmul`` or the ufunc ``op`` calls, when its result may take ``out=``: a
    matrix or more, made afresh (no update in place, no parameters, one or two inputs,
    each an ndarray or a Python number by its type: the call is then the operator's)."""
    t = op.out.type if len(op.outputs) == 1 else None
    if t is None or t.kind != "array" or t.ndim is None or t.ndim < 2 or op.regions \
            or "accumulate" in op.attrs:
        return None
    if not all(v.type is not None and (v.type.kind == "array" or v.type.is_python_number)
               for v in op.operands()):
        return None  # (an operand typed an ndarray or a number: never a foreign array)
    rule = op.attrs.get("rule") or RULES.get(op.prim)
    if rule is None or rule.params or rule.user or not rule.fresh:
        return None
    f = rule.impl
    if not isinstance(f, np.ufunc) or f.nout != 1 or tuple(op.args) != tuple(rule.inputs) \
            or len(rule.inputs) not in (1, 2) or f.nin != len(rule.inputs):
        return None
    if f.signature is not None and f is not np.matmul:
        return None
    return f


def _dead_at_return(v: Value, readers: dict[int, list[Op]], in_results: set[int],
                    pops: dict[int, list[Value]], tapes: set[int], seen: set[int]) -> bool:
    """Nothing holds ``v``'s memory once the function returns (see the module docstring)."""
    if v.id in seen:
        return True
    seen.add(v.id)
    if v.id in in_results:
        return False
    for op in readers.get(v.id, []):
        if op.prim == "tape_push":
            if op.args["tape"].id not in tapes or v.id not in pops:
                return False
            if not all(_dead_at_return(p, readers, in_results, pops, tapes, seen)
                       for p in pops[v.id]):
                return False
            continue
        if op.regions:
            return False  # an initial value of a loop, a branch's operand
        written = op.attrs.get("accumulate")
        if written is not None and op.args.get(written) is v:
            return False  # updated in place: its result is this very array
        if (op.prim in IN_PLACE_FORMS or op.prim == "setitem") and op.args.get("x") is v:
            return False
        rule = op.attrs.get("rule") or RULES.get(op.prim)
        if op.prim in _PASS_THROUGH or (rule is not None and rule.view):
            if not all(_dead_at_return(o, readers, in_results, pops, tapes, seen)
                       for o in op.outputs):
                return False
            continue
        if op.prim in _NEW_RESULT or (rule is not None and rule.fresh):
            continue
        return False
    return True
