"""Activity analysis: which values need a derivative at all.

A value is *varied* when it depends differentiably on a ``wrt`` parameter (through inputs
that have a VJP, never through integer, bool or constant values, ``stop_gradient`` or
non-differentiable ops), and *useful* when a result depends on it. Only values that are
both (*active*) get adjoints, so int/bool/constant arithmetic and side computations add
nothing to the emitted derivative code.

    def f(x, n):              varied: x, y       useful: y, x, n? (n is an int: never)
        y = x * n             active: {x, y}
        return y.sum()

Region ops pass activity through their blocks: an ``if`` output is varied when either
branch's result is; a loop's carried values are iterated to a fixed point (a value
varied in iteration 2 makes its slot varied from the start).
"""

from __future__ import annotations

from srcgrad.errors import SrcGradError
from srcgrad.rules import NONDIFF, Rule

from ..ir.core import Block, Function, Op, Value
from .shifts import cancelled_shifts
from .soundness import check_sound
from .tape import Tapes, pair_tapes, useful_through, varied_through

PACKING = ("make_tuple", "make_list", "make_slice")
_STRUCTURAL = ("call", *PACKING)
_TAPE = ("tape_push", "list_pop")  # a reverse pass's saved values: see .tape


def rule_of(op: Op) -> Rule | None:
    return op.attrs.get("rule")


def _differentiable_inputs(op: Op) -> list[tuple[str, Value]]:
    """(input name, value) pairs a derivative may flow through (not for region ops)."""
    if op.prim in _STRUCTURAL:  # opaque calls and packing: let activity reach them
        return [("args", v) for v in op.operands()]
    rule = rule_of(op)
    if rule is None or rule.kind == NONDIFF:
        return []
    pairs: list[tuple[str, Value]] = []
    for name in rule.inputs:
        if name not in rule.vjp or name not in op.args:
            continue
        a = op.args[name]
        for v in (a if isinstance(a, tuple) else (a,)):
            pairs.append((name, v))
    return pairs


def can_carry(v: Value) -> bool:
    return not (v.type is not None and v.type.is_integral)


def carried_params(op: Op) -> list[list[Value]]:
    """For a loop op: the block parameters of each region that stand for the carried values."""
    if op.prim == "for_range":
        return [op.regions[0].params[1:]]
    if op.prim == "while":
        return [r.params for r in op.regions]
    return []


def varied_values(fn: Function, wrt: list[Value]) -> set[int]:
    """Ids of the values that depend differentiably on ``wrt`` (what forward mode needs)."""
    varied = {v.id for v in wrt if can_carry(v)}
    try:
        _forward(fn.body, varied, pair_tapes(fn), cancelled_shifts(fn))
    except SrcGradError as e:
        if e.filename is None:
            raise SrcGradError(e.message, filename=fn.filename, lineno=e.lineno,
                               advice=e.advice) from None
        raise
    return varied


def useful_values(fn: Function) -> set[int]:
    """Ids of the values a result of ``fn`` depends on differentiably."""
    useful = {r.id for r in fn.body.results if isinstance(r, Value)}
    _backward(fn.body, useful, pair_tapes(fn))
    return useful


def active_values(fn: Function, wrt: list[Value]) -> set[int]:
    """Ids of the values that are both varied (by ``wrt``) and useful (to the results).

    Raises ``SrcGradError`` where a varied value reaches a result through something with
    no derivative rule (see :mod:`.soundness`)."""
    varied = varied_values(fn, wrt)
    useful = useful_values(fn)
    check_sound(fn, varied, useful, "reverse")
    return varied & useful


def checked_varied_values(fn: Function, wrt: list[Value]) -> set[int]:
    """:func:`varied_values`, after the same check as :func:`active_values` (forward mode)."""
    varied = varied_values(fn, wrt)
    check_sound(fn, varied, useful_values(fn), "forward")
    return varied


def _forward(block: Block, varied: set[int], tapes: Tapes,
             constant: set[int] | frozenset[int] = frozenset()) -> None:
    """Spread ``varied`` through ``block``; ``constant`` holds values whose derivative
    provably reaches no result (:mod:`.shifts`), left unvaried."""
    for op in block.ops:
        if op.prim == "if":
            for r in op.regions:
                _forward(r, varied, tapes, constant)
            for k, o in enumerate(op.outputs):
                if can_carry(o) and any(r.results[k].id in varied for r in op.regions):
                    varied.add(o.id)
        elif op.prim in ("for_range", "while"):
            init = op.args["init"]
            body = op.regions[-1]
            for _ in range(len(init) + 2):
                before = len(varied)
                for params in carried_params(op):
                    for k, p in enumerate(params):
                        if can_carry(p) and (init[k].id in varied
                                             or body.results[k].id in varied):
                            varied.add(p.id)
                for r in op.regions:
                    _forward(r, varied, tapes, constant)
                if len(varied) == before:
                    break
            for k, o in enumerate(op.outputs):  # carried, then collected (no init)
                from_init = k < len(init) and init[k].id in varied
                if can_carry(o) and (from_init or body.results[k].id in varied):
                    varied.add(o.id)
        elif op.prim in _TAPE:
            varied_through(op, varied, tapes)
        elif op.prim in PACKING:
            # a tuple or list is static data, but one holding a varied value is varied:
            # what reads it must differentiate through it or refuse (never drop it)
            if any(v.id in varied for v in op.operands()):
                varied.update(o.id for o in op.outputs)
        else:
            _refuse_constant_slots(op, varied)
            if any(v.id in varied for _, v in _differentiable_inputs(op)):
                varied.update(o.id for o in op.outputs
                              if can_carry(o) and o.id not in constant)


def _refuse_constant_slots(op: Op, varied: set[int]) -> None:
    """A varied value reaching an argument the rule does not differentiate (a static
    parameter such as einsum's subscripts or norm's ord, or an input without a derivative)
    would be treated as a constant: refused, never silently zero."""
    rule = rule_of(op)
    if rule is None or rule.kind == NONDIFF or rule.user:
        return  # (a user rule's None marks an argument without derivative: declared)
    for name in (*rule.params, *rule.inputs):
        if name in rule.inputs and (name in rule.vjp or rule.has_forward(name)):
            continue
        a = op.args.get(name)
        values = a if isinstance(a, tuple) else (a,)
        if any(isinstance(v, Value) and v.id in varied for v in values):
            what = "input" if name in rule.inputs else "parameter"
            raise SrcGradError(
                f"a value that depends on the differentiated argument reaches {rule.name}()'s "
                f"{what} `{name}`, which srcgrad has no derivative for", lineno=op.line,
                advice="Pass a constant there (or wrap it in sg.stop_gradient if no "
                       "gradient should flow through it).")


def _backward(block: Block, useful: set[int], tapes: Tapes) -> None:
    for op in reversed(block.ops):
        if op.prim == "if":
            for r in op.regions:
                useful.update(r.results[k].id for k, o in enumerate(op.outputs)
                              if o.id in useful)
                _backward(r, useful, tapes)
        elif op.prim in ("for_range", "while"):
            body = op.regions[-1]
            init = op.args["init"]
            for _ in range(len(init) + 2):
                before = len(useful)
                for k, o in enumerate(op.outputs):
                    if o.id in useful or (k < len(init) and any(
                            ps[k].id in useful for ps in carried_params(op))):
                        useful.add(body.results[k].id)
                _backward(body, useful, tapes)
                if len(useful) == before:
                    break
            for k in range(len(init)):
                if op.outputs[k].id in useful or any(ps[k].id in useful
                                                     for ps in carried_params(op)):
                    useful.add(init[k].id)
        elif op.prim in _TAPE:
            useful_through(op, useful, tapes)
        elif any(o.id in useful for o in op.outputs):
            useful.update(v.id for _, v in _differentiable_inputs(op))
