"""Recursion: a user function that calls itself is called, not inlined.

Where it sits: lowering (:mod:`.calls` meets a call of a function whose body is already
being lowered, i.e. whose code is on the frontend's call stack). Every other user function
is inlined (small bodies run faster inlined, and the outer transform sees through them).

The rule: the recursive call becomes one op of an *opaque primitive* made for the
function. Its primal is the function itself, run as plain NumPy. Its derivative rules are
srcgrad's own transforms of the function (``sg.vjp(fn, wrt=name)`` for an input's
cotangent, ``sg.jvp(fn, wrt=name)`` for its tangent), called at run time: so the emitted
``vjp_fn`` of a recursive ``fn`` calls ``vjp_fn`` again (its generic version, compiled
once for any argument kinds). The derivative functions are themselves wrapped the same
way, so a derivative of a derivative (``sg.grad(sg.grad(f))``, ``sg.hessian``) follows
the same path. The int
arguments of a recursive call (a depth, ``len(x) // 2``) are inputs of the op, run-time
values in the callee's emitted code, so a base case on them is a run-time ``if`` and
compile time does not depend on the depth.

Frames: :func:`call_directly` binds each such call in an emitted module straight to the
callee (the user's function for the primal, a derived function's generic emitted version
for a derivative), so every level costs one Python frame, as in the primal, and a
derivative runs as deep as the function itself, up to Python's recursion limit (which
srcgrad never raises).

Cost: forward mode calls the callee's ``jvp`` once per level for value and tangent
together (:func:`_jvp_pair`; ``ad/forward.py`` replaces the op by it), so forward mode and
forward-over-reverse (``sg.hessian``) are linear in the depth. In the code reverse mode
emits, a recursive call of a user function is a call of the callee's own pair
(``compiler/pairs.py``): its forward sweep returns its value and a record of what its
adjoint needs, its adjoint takes that record, so reverse mode is linear too. The IR other
transforms compose on keeps the rules below (each level's vjp reruns that level's forward
sweep): reverse over reverse of a recursion whose adjoint reads the level below
(``x * f(x, n - 1)``) makes ``O(d^2)`` calls.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import Rule, rule_named

from ..ir import types as T
from ..ir.builder import current
from ..ir.core import JVP_PAIR, PAIR_PART, REVERSE_PAIR, TAKES_TREES, Op, Value
from ..symbolic import Sym, is_symbolic, record_rule, to_value

# op attribute: the code object of the function a recursive call calls
RECURSIVE = "recursive_call_of"

# the rule, said in the emitted module's header (sg.source, srcgrad show)
NOTE = ("a recursive call is a call of the function's own derived function (reverse mode: "
        "fwd_ returns the value and a record of what bwd_, its adjoint, reads; forward "
        "mode: jvp_ returns value and tangent; compiled once for any argument kinds, called "
        "directly: one frame per level, depth known at run time); every other user "
        "function is inlined")

# a rule's derivative functions read these names from their environment
_RESERVED = {"g", "t", "out", "i"}

# target -> its opaque rule; derived functions by (target, transform, wrt name(s))
_RULES: dict[Any, Rule] = {}
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
    return _record(_rule(fn), values, fn, fn.__code__)


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


def check_one_result(fn: Any, ops: Iterable[Op], result: Any, filename: str,
                     line: int | None) -> None:
    """Refuse a recursive ``fn`` (``ops``: its lowering) returning a tuple or list: the
    derivatives of a recursive call take apart one value, not a container of them."""
    code = getattr(fn, "__code__", None)
    if not isinstance(result, (tuple, list)) or not any(
            op.attrs.get(RECURSIVE) is code for op in ops):
        return
    raise SrcGradError(
        f"{fn.__qualname__} calls itself and returns a {type(result).__name__}; srcgrad "
        "differentiates recursion returning one array or number.",
        filename=filename, lineno=line,
        advice="Return one array (np.stack or np.concatenate the values, index it in the "
               "caller), or write the recursion as a loop.")


def _record(rule: Rule, values: list[Any], target: Any, code: Any = None) -> Any:
    """One op of ``rule`` (calling ``target``) on ``values``; its result."""
    operands = {name: to_value(v) for name, v in zip(rule.inputs, values)}
    # the result's type is not known without lowering the callee again (it is being
    # lowered): the op says "unknown", and code after it is generic for it
    attrs: dict[str, Any] = {"rule": rule, TAKES_TREES: True}
    if code is not None:
        attrs[RECURSIVE] = code
        attrs[REVERSE_PAIR] = lambda active: _reverse_pair(target, rule, active)
    if target is not None:
        attrs[JVP_PAIR] = lambda args, tangents: _jvp_pair(target, rule, args, tangents)
    op = current().emit(rule.name, operands, attrs=attrs, types=[T.ANY])
    return Sym(op.out)


def _jvp_pair(target: Any, rule: Rule, args: dict[str, Value],
              tangents: dict[str, Value]) -> tuple[Value, Value]:
    """Record one call of ``sg.jvp(target, wrt=<the inputs with a tangent>)`` on ``args``
    (the op's operands by input name): its (value, tangent). Several inputs with a
    tangent are one tuple ``wrt`` (the tangents passed as a tuple, the result their summed
    directional derivative): one call per level still, not one per input."""
    names, n_pos, inputs = _parameters(target)
    wrt = [k for k, i in enumerate(inputs) if i in tangents]
    b = current()
    if len(wrt) == 1:
        d = _derived(target, "jvp", names[wrt[0]])
        lead = Sym(tangents[inputs[wrt[0]]])
    else:
        d = _derived(target, "jvp", tuple(names[k] for k in wrt))
        lead = Sym(b.emit("make_tuple", {"items": tuple(tangents[inputs[k]]
                                                        for k in wrt)}).out)
    vals: list[Any] = [Sym(args[i]) for i in inputs]
    pair = _record(_rule(d), [*vals[:n_pos], lead, *vals[n_pos:]], d)
    getitem = rule_named("getitem")
    value, tangent = (record_rule(getitem, [pair], {"index": j}).value for j in (0, 1))
    for j, part in enumerate((value, tangent)):
        assert part.op is not None
        part.op.attrs[PAIR_PART] = j
    return value, tangent


def _reverse_pair(target: Any, rule: Rule, active: tuple[str, ...]) -> Any:
    """The rules of ``target``'s forward sweep and adjoint for the inputs ``active``
    (``compiler/pairs.py``), or None."""
    from .. import pairs  # pairs lowers through this package: import when first needed

    names, _, inputs = _parameters(target)
    return pairs.pair_rules(target, tuple(names[inputs.index(i)] for i in active))


def _parameters(target: Any) -> tuple[list[str], int, tuple[str, ...]]:
    """``target``'s parameter names, how many are positional without default (passed
    first, the rest by keyword), and the names its opaque rule's inputs take."""
    label = getattr(target, "__qualname__", None) or repr(target)
    params = list(inspect.signature(target).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise SrcGradError(f"{label} calls itself and takes *args or **kwargs; srcgrad "
                           "differentiates recursion through named parameters only.",
                           advice="Give the recursive function named parameters.")
    names = [p.name for p in params]
    n_pos = sum(1 for p in params if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    return names, n_pos, tuple(f"{n}_" if n in _RESERVED else n for n in names)


def _derived(target: Any, transform: str, name: str | tuple[str, ...]) -> Any:
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


def _rule(target: Any) -> Rule:
    """The opaque primitive calling ``target`` (a user function or a derived function)."""
    rule = _RULES.get(target)
    if rule is not None:
        return rule
    label = getattr(target, "__qualname__", None) or repr(target)
    names, n_pos, inputs = _parameters(target)

    def impl(*vals: Any) -> Any:
        return target(*vals[:n_pos], **dict(zip(names[n_pos:], vals[n_pos:])))

    impl.__name__ = impl.__qualname__ = f"call_{getattr(target, '__name__', 'fn')}"
    impl.__srcgrad_note__ = NOTE  # type: ignore[attr-defined]
    impl.__srcgrad_direct__ = lambda: _direct(target, names, n_pos)  # type: ignore[attr-defined]
    vjp = {inputs[k]: _cotangent(target, name, inputs, n_pos) for k, name in enumerate(names)}
    jvp = {inputs[k]: _tangent(target, inputs, k) for k in range(len(names))}
    rule = Rule(name=f"recursive.{label}#{len(_RULES)}", impl=impl, inputs=inputs,
                vjp=vjp, jvp=jvp, user=True)
    # the derived functions recompute what they need from the inputs: a derivative that
    # does not read the result leaves the primal call dead when nothing else reads it
    # (the reverse sweep of `return f(y, n - 1)` then runs no primal recursion: linear)
    rule.needs = {k: ("g", *inputs) for k in vjp}
    rule.jvp_needs = {k: ("t", *inputs) for k in jvp}
    _RULES[target] = rule
    return rule


def call_directly(ns: dict[str, Any]) -> None:
    """Bind each recursive call of an emitted module (``ns``, its globals) straight to the
    function it calls, so each level of a recursion costs one Python frame, as the primal
    does, and a derivative runs as deep as the function itself (Python's recursion limit).
    The callee is resolved at the first call (it may be the module being compiled): a
    derived function's generic version (compiled for any argument kinds, its code the
    same whatever the depth), called without its dispatcher; the user's own function
    for the primal. The first call goes through a stand-in that rebinds the name."""
    for name, obj in list(ns.items()):
        resolve = getattr(obj, "__srcgrad_direct__", None)
        if resolve is None:
            continue

        def first(*vals: Any, _name: str = name, _impl: Any = obj,
                  _resolve: Any = resolve) -> Any:
            fn = _resolve() or _impl
            ns[_name] = fn
            return fn(*vals)

        ns[name] = first


def _direct(target: Any, names: list[str], n_pos: int) -> Any:
    """What a call of ``target`` with its arguments in ``names`` order can call without the
    opaque rule's wrapper, or None: the target itself, or a derived function's compiled
    generic version (when it takes them in that order and no structure is rebuilt)."""
    if n_pos != len(names):
        return None  # defaulted parameters are passed by keyword
    derivation = getattr(target, "__srcgrad__", None)
    if derivation is None:
        return target
    if list(derivation.call_names) != names:
        return None
    try:
        entry = derivation.entry(None)
    except SrcGradError:
        return None  # the generic version cannot be compiled: the dispatcher's are
    return entry.fn if entry.boundary is None else None


def _cotangent(target: Any, name: str, inputs: tuple[str, ...], n_pos: int) -> Any:
    """The VJP of the opaque rule for input ``name``: records a call of
    ``sg.vjp(target, wrt=name)`` (the seed after the positional arguments, as the derived
    function takes it), itself an opaque primitive."""

    def derivative(**env: Any) -> Any:
        vals = [env[n] for n in inputs]
        d = _derived(target, "vjp", name)
        return _record(_rule(d), [*vals[:n_pos], env["g"], *vals[n_pos:]], d)

    derivative.__name__ = f"vjp_{name}"
    return derivative


def _tangent(target: Any, inputs: tuple[str, ...], k: int) -> Any:
    """The JVP of the opaque rule for input ``k`` (forward mode itself takes all inputs'
    tangents at once, see ``_jvp_pair``): the tangent of a ``sg.jvp`` call's pair."""

    def derivative(**env: Any) -> Any:
        args = {i: to_value(env[i]) for i in inputs}
        return Sym(_jvp_pair(target, _rule(target), args, {inputs[k]: to_value(env["t"])})[1])

    derivative.__name__ = f"jvp_{inputs[k]}"
    return derivative


__all__ = ["call_directly", "call_recursive", "check_one_result"]
