"""Recursion: a user function that calls itself is called, not inlined.

Where it sits: lowering (:mod:`.calls` meets a call of a function whose body is already
being lowered, i.e. whose code is on the frontend's call stack). Every other user function
is inlined (small bodies run faster inlined, and the outer transform sees through them).

The rule: the recursive call becomes one op of an *opaque primitive* made for the
function. Its primal is the function itself, run as plain NumPy. Its derivative rules are
srcgrad's own transforms of the function (``sg.vjp(fn, wrt=name)`` for an input's
cotangent, ``sg.jvp(fn, wrt=name)`` for its tangent), called at run time: so the emitted
``vjp_fn`` of a recursive ``fn`` calls ``vjp_fn`` again, compiled once per abstract
signature. The derivative functions are themselves wrapped the same way, so a derivative of
a derivative (``sg.grad(sg.grad(f))``, ``sg.hessian``) follows the same path. The int
arguments of a recursive call (a depth, ``len(x) // 2``) are inputs of the op, run-time
values in the callee's emitted code, so a base case on them is a run-time ``if`` and
compile time does not depend on the depth.

Cost: the reverse sweep of each level reruns that level's forward sweep (the vjp of a
level is a whole ``sg.vjp`` call), so reverse mode of a depth-``d`` recursion runs
``O(d^2)`` primal steps for a chain (``O(n log n)`` for halving on a shape); forward mode
is linear. One Python frame of the derived function per level, plus the dispatcher's.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import Rule

from ..ir import types as T
from ..ir.builder import current
from ..ir.core import Op
from ..symbolic import Sym, is_symbolic, to_value

# op attribute: the code object of the function a recursive call calls
RECURSIVE = "recursive_call_of"

# the rule, said in the emitted module's header (sg.source, srcgrad show)
NOTE = ("a recursive call is a call of the function's own derived function (compiled once "
        "per argument types, depth known at run time); every other user function is inlined")

# a rule's derivative functions read these names from their environment
_RESERVED = {"g", "t", "out", "i"}

# (target, pick) -> its opaque rule; derived functions by (target, transform, name)
_RULES: dict[tuple[Any, int | None], Rule] = {}
_DERIVED: dict[tuple[Any, str, str], Any] = {}


def call_recursive(fn: Any, values: list[Any], filename: str, line: int | None) -> Any:
    """Record the call ``fn(*values)`` (``values`` in ``fn``'s parameter order, defaults
    applied) as one op of ``fn``'s opaque primitive; its result."""
    for v in values:
        if isinstance(v, (list, tuple, dict)) and is_symbolic(v):
            raise SrcGradError(
                f"{fn.__qualname__} calls itself with a list, tuple or dict of traced values; "
                "srcgrad differentiates recursion on arrays, floats and ints only.",
                filename=filename, lineno=line,
                advice="Pass the arrays as separate arguments, or write the recursion as a "
                       "loop.")
    return _record(_rule(fn, None), values, fn.__code__)


def check_recomputable(fn: Any, ops: Iterable[Op], filename: str) -> None:
    """Refuse a recursive ``fn`` whose body (``ops``, its lowering) holds an opaque call
    (``np.random.normal``, a user object's method): each level's derivative reruns that
    level's forward sweep, which would draw again and silently differentiate another
    draw."""
    ops = list(ops)
    code = getattr(fn, "__code__", None)
    if not any(op.attrs.get(RECURSIVE) is code for op in ops):
        return
    for op in ops:
        if op.prim == "call":
            callee = op.attrs.get("fn")
            name = getattr(callee, "__qualname__", None) or repr(callee)
            raise SrcGradError(
                f"{fn.__qualname__} calls itself and calls {name}, which srcgrad cannot "
                "repeat: the derivative of each level of a recursion reruns that level, "
                "and a random draw or other opaque call would give another value.",
                filename=filename, lineno=op.line,
                advice=f"Draw or compute the value of {name} outside the recursive "
                       "function and pass it in as an argument.")


def _record(rule: Rule, values: list[Any], code: Any = None) -> Any:
    operands = {name: to_value(v) for name, v in zip(rule.inputs, values)}
    # the result's type is not known without lowering the callee again (it is being
    # lowered): the op says "unknown", and code after it is generic for it
    attrs: dict[str, Any] = {"rule": rule}
    if code is not None:
        attrs[RECURSIVE] = code
    op = current().emit(rule.name, operands, attrs=attrs, types=[T.ANY])
    return Sym(op.out)


def _derived(target: Any, transform: str, name: str) -> Any:
    """``sg.<transform>(target, wrt=name)``, made once (its compiled versions are cached by
    the dispatcher it owns)."""
    key = (target, transform, name)
    d = _DERIVED.get(key)
    if d is None:
        from .. import api  # api lowers through this package: import when first needed

        d = getattr(api, transform)(target, wrt=name)
        # its seed is our own adjoint, shaped right: unchecked, the callee's result is
        # not computed just for its shape
        d.__srcgrad__.trusted_seed = transform == "vjp"
        _DERIVED[key] = d
    return d


def _rule(target: Any, pick: int | None) -> Rule:
    """The opaque primitive calling ``target`` (a user function or a derived function);
    ``pick``: take that element of its result (a jvp's tangent)."""
    rule = _RULES.get((target, pick))
    if rule is not None:
        return rule
    label = getattr(target, "__qualname__", None) or repr(target)
    params = list(inspect.signature(target).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise SrcGradError(f"{label} calls itself and takes *args or **kwargs; srcgrad "
                           "differentiates recursion through named parameters only.",
                           advice="Give the recursive function named parameters.")
    names = [p.name for p in params]
    # the positional ones (no default) first, then the rest, passed by keyword
    n_pos = sum(1 for p in params if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    inputs = tuple(f"{n}_" if n in _RESERVED else n for n in names)

    def impl(*vals: Any) -> Any:
        result = target(*vals[:n_pos], **dict(zip(names[n_pos:], vals[n_pos:])))
        return result if pick is None else result[pick]

    impl.__name__ = impl.__qualname__ = f"call_{getattr(target, '__name__', 'fn')}"
    impl.__srcgrad_note__ = NOTE  # type: ignore[attr-defined]
    vjp: dict[str, Any] = {}
    jvp: dict[str, Any] = {}
    if pick is None:
        for k, name in enumerate(names):
            vjp[inputs[k]] = _seeded(target, "vjp", name, inputs, n_pos, "g", None)
            jvp[inputs[k]] = _seeded(target, "jvp", name, inputs, n_pos, "t", 1)
    rule = Rule(name=f"recursive.{label}#{len(_RULES)}", impl=impl, inputs=inputs,
                vjp=vjp, jvp=jvp, user=True)
    # the derived functions recompute what they need from the inputs: a derivative that
    # does not read the result leaves the primal call dead when nothing else reads it
    # (the reverse sweep of `return f(y, n - 1)` then runs no primal recursion: linear)
    rule.needs = {k: ("g", *inputs) for k in vjp}
    rule.jvp_needs = {k: ("t", *inputs) for k in jvp}
    _RULES[(target, pick)] = rule
    return rule


def _seeded(target: Any, transform: str, name: str, inputs: tuple[str, ...], n_pos: int,
            lead: str, pick: int | None) -> Any:
    """A derivative function of the opaque rule: records a call of
    ``sg.<transform>(target, wrt=name)`` (seed or tangent after the positional
    arguments, as the derived function takes it), itself an opaque primitive."""

    def derivative(**env: Any) -> Any:
        vals = [env[n] for n in inputs]
        d = _derived(target, transform, name)
        return _record(_rule(d, pick), [*vals[:n_pos], env[lead], *vals[n_pos:]])

    derivative.__name__ = f"{transform}_{name}"
    return derivative


__all__ = ["call_recursive"]
