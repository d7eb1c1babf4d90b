"""Refusals: where a derivative would be needed but srcgrad has no rule for it.

Runs inside activity analysis (:mod:`.activity`), before either transform, once it knows
which values are *varied* (depend on a ``wrt`` argument) and which are *useful* (a result
depends on them). "No derivative" is something a rule declares (``kind=NONDIFF``, an input
without a VJP), never what the compiler assumes for what it cannot read (DESIGN.md
principle 10). So a varied value may not reach a useful op through:

- an opaque ``call`` (a function with no rule and no source): the derivative of its
  result is unknown, and so is what it wrote into an operand the results read later
  (``np.copyto(y, x)`` with its result dropped);
- a static parameter of a rule (``axis``, ``num``, a keyword-only parameter of an
  ``sg.defvjp`` function): rules hold no derivative for those;
- a complex value (``x * 1j``, ``np.exp(1j * x)``): srcgrad differentiates real values
  only, and a rule applied to a complex value would silently give a derivative of another
  convention (or drop the imaginary part);
- a tuple or list handed to a rule input as such (an ``sg.defvjp`` function's argument):
  its rule receives the packed value, not differentiable leaves.

Each is a :class:`~srcgrad.errors.SrcGradError` naming the function, the user's line and
what to write instead. (Lists passed where NumPy takes an array never get here: lowering
turns them into the array ``np.asarray`` would build, see ``symbolic.as_array``.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules import NONDIFF

from ..ir.core import TAKES_TREES, WRITTEN_AT, Block, Function, Op, Value

_PACKING = ("make_tuple", "make_list", "make_slice")

# Supported spellings of common functions that have no rule (the advice of a refusal).
_EQUIVALENTS = {
    "piecewise": "np.where",
    "block": "np.concatenate",
    "put": "an index assignment y[idx] = v on a copy",
    "place": "np.where(mask, values, x)",
}


def check_sound(fn: Function, varied: set[int], useful: set[int], mode: str) -> None:
    """Raise where a varied value reaches a useful op that has no derivative for it."""
    for op in _ops(fn.body):
        if any(o.id in varied and o.id in useful and o.type is not None and o.type.is_complex
               for o in op.outputs):
            raise _complex(fn, op)
        if op.prim == "call":
            if any(v.id in varied for v in op.operands()) and reaches_result(op, useful):
                raise _no_rule(fn, op, mode)
            continue
        if not any(o.id in useful for o in op.outputs):
            continue
        rule = op.attrs.get("rule")
        if rule is None or rule.kind == NONDIFF:
            continue  # packing, control flow, print; or a rule that declares no derivative
        for name, arg in op.args.items():
            for v in arg if isinstance(arg, tuple) else (arg,):
                if v is None or v.id not in varied:
                    continue
                if name in rule.params:
                    raise _static(fn, op, rule, name)
                if v.op is not None and v.op.prim in _PACKING and TAKES_TREES not in op.attrs:
                    raise _packed(fn, op, rule, name, v.op.prim)


def reaches_result(op: Op, useful: set[int]) -> bool:
    """Can what an opaque call does reach a result? Through its own output, or through an
    operand the results read afterwards: a call whose output is dropped may still have
    written into that operand (``np.copyto(y, x)``, ``np.put``, ``np.add.at``), and
    srcgrad cannot see what it wrote, so skipping it as dead would give a zero gradient."""
    if not any(map(_carries, op.outputs)):
        return False  # an int or bool result (srcgrad's own is_unbound test): no derivative
    if any(o.id in useful for o in op.outputs):
        return True
    return any(v.id in useful and _carries(v) for v in op.operands())


def _ops(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for r in op.regions:
            yield from _ops(r)


def _carries(v: Value) -> bool:
    """Can ``v`` hold a derivative (not an int, bool or static value)?"""
    return not (v.type is not None and v.type.is_integral)


def callee_name(fn: Any) -> str:
    """``np.linalg.norm``, ``math.fsum``, ``mymodule.f``: how the user spelled ``fn``."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, np.ufunc) or module == "numpy" or module.startswith("numpy._core"):
        return f"np.{getattr(fn, '__name__', name)}"
    if module.startswith("numpy."):
        return f"np.{module.split('.', 1)[1]}.{name}"
    return f"math.{name}" if module == "math" else name


def _where(fn: Function, op: Op) -> dict[str, Any]:
    return {"filename": fn.filename, "lineno": op.line}


def written_at(op: Op) -> str:
    """`` (written at file:line, ...)`` for a call inlined from a called function (its op
    carries the caller's line, which the message names first), else ""."""
    where = op.attrs.get(WRITTEN_AT)
    if where is None or where[1] is None:
        return ""
    return f" (written at {where[0]}:{where[1]}, in a function this line calls)"


def _no_rule(fn: Function, op: Op, mode: str) -> SrcGradError:
    callee = op.attrs["fn"]
    name = op.attrs.get("display") or callee_name(callee)  # (rng.normal: RandomState's)
    register = "sg.defvjp" if mode == "reverse" else "sg.defjvp"
    instead = _EQUIVALENTS.get(getattr(callee, "__name__", ""))
    alternative = f"write it with {instead}, " if instead else ""
    inside = op.attrs.get("rule_body")  # frontend.rule_bodies.RULE_BODY
    within = (f" It is called in the derivative rule {inside[0]} ({inside[1]}:{inside[2]}), "
              "whose body is differentiated again here." if inside else "")
    return SrcGradError(
        f"the call to {name}{written_at(op)} has no derivative rule and no Python source to "
        f"differentiate.{within}",
        advice=f"Register its derivative with {register}({name}, ...), {alternative}or wrap "
               "the value in sg.stop_gradient if no gradient should flow through it.",
        **_where(fn, op))


def _complex(fn: Function, op: Op) -> SrcGradError:
    return SrcGradError(
        f"this computes a complex value ({op.outputs[0].type.dtype}) from the differentiated "
        "argument, and srcgrad differentiates real values only.",
        advice="Carry the real and imaginary parts as two real arrays (for exp(1j * x): "
               "np.cos(x) and np.sin(x)) and combine them with real arithmetic.",
        **_where(fn, op))


def _rule_callee(op: Op, rule: Any) -> str:
    return callee_name(op.attrs.get("callee", rule.impl))


def _static(fn: Function, op: Op, rule: Any, name: str) -> SrcGradError:
    callee = _rule_callee(op, rule)
    return SrcGradError(
        f"a value that depends on the differentiated argument reaches `{name}`, a static "
        f"argument of {callee} that srcgrad has no derivative for.",
        advice=f"Pass a constant as `{name}`, wrap it in sg.stop_gradient if no gradient "
               f"should flow through it, or register a rule for {callee} with sg.defvjp.",
        **_where(fn, op))


def _packed(fn: Function, op: Op, rule: Any, name: str, prim: str) -> SrcGradError:
    callee = _rule_callee(op, rule)
    what = {"make_tuple": "tuple", "make_list": "list"}.get(prim, "slice")
    return SrcGradError(
        f"a {what} holding values that depend on the differentiated argument is passed as "
        f"`{name}` of {callee}, whose derivative rule takes arrays, not a {what}.",
        advice=f"Pass the values as separate arguments, or as one array (np.stack([...])), "
               f"and register {callee}'s rule for that.",
        **_where(fn, op))
