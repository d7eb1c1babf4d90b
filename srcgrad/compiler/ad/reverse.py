"""Reverse mode: primal IR -> IR computing the primal and then the adjoints.

The derived function runs a copy of the primal ops, seeds the result's adjoint (``1`` for
``grad``, the caller's seed for ``vjp``), and walks the active ops backwards. For each
active input of an op it calls the input's VJP from the rule table on symbolic values
(:mod:`..symbolic`), which records the rule body as IR: no derivative math lives here.
Contributions are accumulated with ``add``; where the rule ``broadcasts`` and the input's
shape may differ from the output's, ``unbroadcast`` undoes the broadcast (skipped when the
other inputs are known scalars). Gradients are cast back to their argument's type.

    y = sin(x=%x)          ->   %y = sin(x=%x)
    return y                    %dy = seed_one(out=%y)
                                %0 = cos(x=%x)
                                %dx = multiply(x=%dy, y=%0)
                                return %dx
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import Rule, rule_named

from ..ir import types as T
from ..ir.builder import Builder, clone_function
from ..ir.core import Function, Op, Value
from ..structural import STRUCTURAL
from ..symbolic import Sym, record_rule, static_or_sym, to_value
from .activity import active_values, rule_of

GRAD, VALUE_AND_GRAD, VJP = "grad", "value_and_grad", "vjp"


@dataclass
class ReverseSpec:
    wrt: tuple[int, ...]  # parameter indices
    tuple_wrt: bool  # return a tuple of gradients
    transform: str  # grad | value_and_grad | vjp


def reverse(primal: Function, spec: ReverseSpec) -> Function:
    fn, _ = clone_function(primal)
    fn.name = f"{spec.transform}_{primal.name}"
    primal_ops = list(fn.body.ops)
    outputs = list(fn.body.results)
    wrt_params = [fn.params[i] for i in spec.wrt]
    active = active_values(fn, wrt_params)
    with Builder(fn.body, line=primal.meta.get("return_line")) as b:
        adjoints = _Adjoints(b, fn)
        seeds = _seeds(fn, b, outputs, spec)
        for out, seed in zip(outputs, seeds):
            if out.id in active:
                adjoints.accumulate(out, seed)
        for op in reversed(primal_ops):
            if any(o.id in active and o.id in adjoints.table for o in op.outputs):
                with b.at_line(op.line):
                    _backprop(op, adjoints, active, fn)
        with b.at_line(None):
            grads = [_cast_back(b, adjoints.table.get(p.id), p) for p in wrt_params]
    n = len(grads)
    grad_tree: Any = list(range(n)) if spec.tuple_wrt else 0
    if spec.transform == VALUE_AND_GRAD:
        fn.body.results = [*outputs, *grads]
        fn.meta["returns"] = [0, [i + 1 for i in range(n)] if spec.tuple_wrt else 1]
    else:
        fn.body.results = grads
        fn.meta["returns"] = grad_tree
    fn.meta.update(transform=spec.transform, wrt=spec.wrt, tuple_wrt=spec.tuple_wrt,
                   n_outputs=len(outputs), primal_tuple=primal.meta.get("tuple_result", False))
    fn.meta["tuple_result"] = isinstance(fn.meta["returns"], list)
    return fn


def _seeds(fn: Function, b: Builder, outputs: list[Value], spec: ReverseSpec) -> list[Value]:
    if spec.transform == VJP:
        seed = Value(name="seed", line=None, type=T.ANY)
        fn.params.append(seed)
        if len(outputs) == 1 and not fn.meta.get("tuple_result"):
            return [seed]
        getitem = rule_named("getitem")
        return [record_rule(getitem, [Sym(seed)], {"index": i}).value
                for i in range(len(outputs))]
    if len(outputs) != 1 or fn.meta.get("tuple_result"):
        raise SrcGradError(
            f"sg.{spec.transform} needs a function whose result has exactly one element; "
            f"{fn.name.split('_', 1)[-1]} returns a tuple of {len(outputs)} values.",
            filename=fn.filename, lineno=fn.meta.get("return_line"),
            advice="Use sg.vjp(f) with a tuple seed, or return one value.")
    (out,) = outputs
    if out.type == T.FLOAT:
        return [b.const(1.0)]
    return [record_rule(STRUCTURAL["seed_one"], [Sym(out)], {}).value]


class _Adjoints:
    def __init__(self, b: Builder, fn: Function) -> None:
        self.b = b
        self.fn = fn
        self.table: dict[int, Value] = {}
        self.shapes: dict[int, Any] = {}
        self.dtypes: dict[int, Any] = {}

    def accumulate(self, x: Value, ct: Value) -> None:
        old = self.table.get(x.id)
        if old is not None:
            ct = record_rule(rule_named("add"), [Sym(old), Sym(ct)], {}).value
        if ct.op is not None and ct.op.prim == "const":
            ct = record_rule(STRUCTURAL["stop_gradient"], [Sym(ct)], {}).value
        if ct.adjoint_of is None and ct.op is not None:
            ct.adjoint_of = x
        self.table[x.id] = ct

    def shape_of(self, x: Value) -> Any:
        if x.type is not None and x.type.known_ndim == 0:
            return ()
        if x.id not in self.shapes:
            out = record_rule(rule_named("shape"), [Sym(x)], {})
            out.value.type = T.STATIC
            self.shapes[x.id] = out
        return self.shapes[x.id]

    def dtype_of(self, x: Value) -> Any:
        import numpy as np

        if x.type is not None and x.type.dtype is not None:
            return np.dtype(x.type.dtype)
        if x.id not in self.dtypes:
            out = record_rule(rule_named("dtype"), [Sym(x)], {})
            out.value.type = T.STATIC
            self.dtypes[x.id] = out
        return self.dtypes[x.id]


def _backprop(op: Op, adj: _Adjoints, active: set[int], fn: Function) -> None:
    if op.prim == "call":
        name = getattr(op.attrs["fn"], "__qualname__", repr(op.attrs["fn"]))
        raise SrcGradError(
            f"the call to {name} has no derivative rule and no Python source to "
            "differentiate.", filename=fn.filename, lineno=op.line,
            advice=f"Register its derivative with sg.defvjp({name}, ...), or wrap the value "
                   "in sg.stop_gradient if no gradient should flow through it.")
    rule = rule_of(op)
    if rule is None:
        return
    g = adj.table[op.outputs[0].id]
    for name in rule.inputs:
        if name not in rule.vjp or name not in op.args:
            continue
        arg = op.args[name]
        if isinstance(arg, tuple):
            for i, x in enumerate(arg):
                if x.id in active:
                    ct = _call_vjp(rule, name, op, g, adj, i)
                    adj.accumulate(x, ct)
            continue
        if arg.id in active:
            ct = _call_vjp(rule, name, op, g, adj, None)
            if rule.broadcasts and not _same_shape(rule, op, name):
                ct = record_rule(rule_named("unbroadcast"), [Sym(ct)],
                                 {"shape": adj.shape_of(arg)}).value
            adj.accumulate(arg, ct)


def _call_vjp(rule: Rule, name: str, op: Op, g: Value, adj: _Adjoints, i: int | None) -> Value:
    env: dict[str, Any] = {}
    for need in rule.needs[name]:
        if need == "g":
            env["g"] = Sym(g)
        elif need == "out":
            env["out"] = static_or_sym(op.outputs[0])
        elif need == "i":
            env["i"] = i
        elif need.endswith("_shape") and need[:-6] in rule.inputs:
            env[need] = _per_input(op, need[:-6], adj.shape_of)
        elif need.endswith("_dtype") and need[:-6] in rule.inputs:
            env[need] = _per_input(op, need[:-6], adj.dtype_of)
        else:
            a = op.args.get(need)
            if isinstance(a, tuple):
                env[need] = tuple(static_or_sym(v) for v in a)
            elif a is None:
                env[need] = None
            else:
                env[need] = static_or_sym(a)
    result = rule.call_vjp(name, env)
    return to_value(result)


def _per_input(op: Op, name: str, get: Any) -> Any:
    a = op.args[name]
    if isinstance(a, tuple):
        return tuple(get(v) for v in a)
    return get(a)


def _same_shape(rule: Rule, op: Op, name: str) -> bool:
    """True when input ``name`` surely has the output's shape (the others are scalars)."""
    x = op.args[name]
    out_t = op.outputs[0].type
    if x.type is not None and x.type.known_ndim == 0 and out_t is not None \
            and out_t.known_ndim == 0:
        return True
    for other in rule.inputs:
        v = op.args.get(other)
        if v is None or v is x or other == name:
            continue
        if isinstance(v, tuple) or v.type is None or v.type.known_ndim != 0:
            return False
    return True


def _cast_back(b: Builder, d: Value | None, p: Value) -> Value:
    v = _cast(b, d, p)
    if v.op is not None and v is not d:
        v.adjoint_of = p
    return v


def _cast(b: Builder, d: Value | None, p: Value) -> Value:
    t = p.type or T.ANY
    if d is None:
        if t == T.FLOAT:
            v = b.const(0.0)
            return record_rule(STRUCTURAL["stop_gradient"], [Sym(v)], {}).value
        return record_rule(STRUCTURAL["zeros_of"], [Sym(p)], {}).value
    if t == T.FLOAT:
        if d.type == T.FLOAT:
            return d
        return record_rule(STRUCTURAL["float"], [Sym(d)], {}).value
    return record_rule(STRUCTURAL["like"], [Sym(d), Sym(p)], {}).value
