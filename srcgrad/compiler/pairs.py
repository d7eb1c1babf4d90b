"""A recursive user function's own pair of emitted functions: its forward sweep and its
adjoint, for reverse mode.

Where it sits: after lowering and reverse mode, beside :mod:`.api` (it lowers, transforms,
optimises, emits and compiles, like a derivation). Reverse mode asks for a pair when it
builds the code it emits for a function with a recursive call (``ad/scope.py``
``_reverse_pair``, through the op's ``ir.core.REVERSE_PAIR``); the IR another transform
composes on keeps the call's rules (``frontend/recursion.py``).

The rule (DESIGN notes, and the emitted module's header): a function that calls itself
gets its own pair; every other user function is inlined. For ``f`` and the names of the
arguments that carry an adjoint, the generic reverse-mode IR of ``f`` is split where its
adjoint starts: ``fwd_f(*args)`` runs the forward sweep and returns ``(f(*args), record)``,
``record`` the tuple of every value the adjoint reads (``None`` for those a branch not
taken did not compute); ``bwd_f(record, seed)`` runs the adjoint from it and returns the
cotangent(s). A recursive call inside is itself a ``fwd_f`` call whose record is one item
of the caller's record, and its adjoint a ``bwd_f`` call on that item, so each level runs
its forward sweep once: reverse mode is linear in the depth, each level one Python frame.

    def fwd_power(x, n):                      def bwd_power(record, seed):
        if n == 0: p, r = 1.0, None               x, p, r = record[0], record[1], ...
        else: p, r = fwd_power(x, n - 1)          ... bwd_power(r, seed * x) ...
        return x * p, (x, p, r)
"""

from __future__ import annotations

from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import Rule, generation, rule_named

from . import cache
from .ad.reverse import VJP, ReverseSpec, reverse
from .backend.compile import compile_module
from .backend.emit import emit_function, module_text
from .backend.names import References
from .frontend import lower
from .frontend.recursion import NOTE, call_directly
from .ir import types as T
from .ir.builder import Builder, clone_block
from .ir.core import PAIR_FORWARD, Block, Function, Op, Value
from .ir.verify import each_pass, verify
from .passes.pipeline import optimize
from .symbolic import Sym, record_rule

Key = tuple[Any, tuple[str, ...]]

# compiled pairs are kept in .cache under ("pair", wrt), with what they assumed (the
# globals the function read, the rule table's generation): a stale one compiles again
_NONE: set[Key] = set()  # (function, wrt names) that have no pair
_RULES: dict[Key, tuple[Rule, Rule]] = {}
_BUSY: set[Key] = set()  # pairs being compiled (a recursion asks for its own)
_OF_RULE: dict[str, Key] = {}  # a forward sweep's rule name -> its pair's key


def pair_rules(fn: Any, wrt: tuple[str, ...]) -> tuple[Rule, Rule] | None:
    """The opaque rules calling ``fn``'s forward sweep and adjoint for arguments ``wrt``
    (parameter names), or None when ``fn`` gets no pair (its reverse mode does not split:
    a tuple result, or something this path cannot compile; the call's rules then apply)."""
    key = (fn, wrt)
    if key not in _BUSY and compiled(fn, wrt) is None:
        return None
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = (_stub(fn, wrt, 0), _stub(fn, wrt, 1))
        _OF_RULE[rules[0].name] = key
    return rules


def listing(ir: Function) -> str:
    """The text of the pairs ``ir`` calls (after its own module text in ``sg.source``, so
    a reader sees every function the derivative runs), or ""."""
    keys = dict.fromkeys(_OF_RULE[op.prim] for op in ir.body.walk() if op.prim in _OF_RULE)
    parts = []
    for fn, wrt in keys:
        pair = compiled(fn, wrt)
        if pair is not None:
            parts.append(f"# the pair it calls for {getattr(fn, '__qualname__', fn)} "
                         f"(d/d {', '.join(wrt)}), compiled once, shared:\n{pair[2]}")
    return "".join(f"\n\n{p}" for p in parts)


def compiled(fn: Any, wrt: tuple[str, ...]) -> tuple[Any, Any, str] | None:
    """``(fwd_f, bwd_f, module text)`` for ``fn`` and ``wrt``, compiled once (again when
    what it assumed changed)."""
    key = (fn, wrt)
    if key in _NONE:
        return None
    entry = cache.lookup(fn, ("pair", wrt))
    if entry is None:
        _BUSY.add(key)
        try:
            entry = _compile(fn, wrt)
        except Exception:  # noqa: BLE001 - any failure: the call keeps its rules, which
            entry = None  # are right, only slower
        finally:
            _BUSY.discard(key)
        if entry is None:
            _NONE.add(key)
            return None
        cache.store(fn, ("pair", wrt), entry)
    return entry.fn


def _stub(fn: Any, wrt: tuple[str, ...], which: int) -> Rule:
    """The opaque rule of ``fn``'s forward sweep (``which`` 0) or adjoint (1). Its impl
    finds the compiled function when first called; ``call_directly`` binds the emitted
    code's name to that function itself."""
    name = getattr(fn, "__name__", "fn")

    def resolve() -> Any:
        pair = compiled(fn, wrt)
        assert pair is not None
        return pair[which]

    def impl(*vals: Any) -> Any:
        return resolve()(*vals)

    impl.__name__ = impl.__qualname__ = f"call_{('fwd', 'bwd')[which]}_{name}"
    impl.__srcgrad_note__ = NOTE  # type: ignore[attr-defined]
    impl.__srcgrad_direct__ = resolve  # type: ignore[attr-defined]
    label = getattr(fn, "__qualname__", name)
    if which == 0:
        from inspect import signature
        inputs = tuple(signature(fn).parameters)
    else:
        inputs = ("record", "seed")
    return Rule(name=f"recursive.{('forward', 'adjoint')[which]}.{label}#{len(_RULES)}",
                impl=impl, inputs=inputs, user=True)


def _compile(fn: Any, wrt: tuple[str, ...]) -> cache.Entry | None:
    gen = generation()
    primal, deps = lower(fn, None)
    if primal.meta.get("tuple_result") or len(primal.body.results) != 1:
        return None
    names = primal.param_names
    spec = ReverseSpec(tuple(names.index(w) for w in wrt), len(wrt) > 1, VJP,
                       trusted_seed=True)
    derived = reverse(primal, spec, pairs=True)
    verify(derived)
    fwd, bwd = _split(derived, primal.name)
    refs = References()
    emitted = []
    for part in (fwd, bwd):
        verify(part)
        optimize(part, check=each_pass())
        verify(part)
        emitted.append(emit_function(part, refs))
    text = module_text(emitted)
    ns = compile_module(text, refs.namespace, emitted[0].name)
    call_directly(ns)
    pair = (ns[emitted[0].name], ns[emitted[1].name], text)
    return cache.Entry(pair, text, None, deps, gen)


def _split(derived: Function, name: str) -> tuple[Function, Function]:
    """The forward sweep and the adjoint of reverse-mode IR ``derived`` (see the module
    docstring)."""
    ids = derived.meta.pop("primal_ops")
    (result,) = derived.meta.pop("primal_results")
    ops = derived.body.ops
    k = 1 + max(i for i, op in enumerate(ops) if id(op) in ids or PAIR_FORWARD in op.attrs)
    if any(id(op) in ids for op in ops[k:]):
        raise SrcGradError(f"internal: the reverse sweep of {name} is not after its "
                           "forward sweep")
    *params, seed = derived.params
    defined = {p.id for p in params} | {o.id for op in ops[:k] for o in op.outputs}
    record: dict[int, Value] = {}
    for v in _reads(ops[k:], derived.body.results):
        if v.id in defined:
            record.setdefault(v.id, v)
    items = list(record.values())
    meta = {key: v for key, v in derived.meta.items() if key not in ("returns",)}

    forward_body = Block(ops=ops[:k])
    with Builder(forward_body, line=None) as b:
        packed = b.emit("make_tuple", {"items": tuple(items)}).out
    forward_body.results = [result, packed]
    fwd = Function(f"fwd_{name}", params, forward_body, {}, derived.filename,
                   derived.firstlineno, dict(derived.source_lines),
                   {**meta, "returns": [0, 1], "tuple_result": True}, dict(derived.notes))

    rec = Value(name="record", type=T.ANY)
    unpack = Block()
    mapping: dict[Value, Value] = {}
    with Builder(unpack, line=None):
        getitem = rule_named("getitem")
        for i, v in enumerate(items):
            mapping[v] = record_rule(getitem, [Sym(rec)], {"index": i}).value
            mapping[v].name = v.name
    adjoint = clone_block(Block(ops=ops[k:], results=list(derived.body.results)), mapping)
    bwd = Function(f"bwd_{name}", [rec, seed], Block(ops=unpack.ops + adjoint.ops,
                                                     results=adjoint.results),
                   {}, derived.filename, derived.firstlineno, dict(derived.source_lines),
                   {**meta, "returns": derived.meta["returns"]}, dict(derived.notes))
    return fwd, bwd


def _reads(ops: list[Op], results: list[Value]) -> list[Value]:
    """Every value ``ops`` (regions included) and ``results`` read, in first-read order."""
    out: list[Value] = []

    def walk(block_ops: list[Op]) -> None:
        for op in block_ops:
            out.extend(op.operands())
            for r in op.regions:
                walk(r.ops)
                out.extend(v for v in r.results if isinstance(v, Value))

    walk(ops)
    out.extend(results)
    return out


__all__ = ["compiled", "pair_rules"]
