"""One level of the reverse transform: a primal block and the block its adjoint goes in.

The top-level scope appends the adjoint after the primal ops of the function body. A
region (a branch of an ``if``, a loop body) gets its own adjoint block inside the adjoint
op, where the primal region's values are not in scope: :meth:`Scope.visible` makes them
so, by *exporting* them (an extra output of the primal ``if``; a push onto the loop's tape
that the adjoint loop pops), see :mod:`.regions`. Each scope accumulates adjoints in its
own table; what it accumulates for values defined outside its block flows back to the
enclosing scope when the region is done.

Per primitive op, :meth:`Scope.backprop_op` calls each active input's VJP from the rule
table on symbolic values (so the rule body is recorded as IR), undoes broadcasting with
``unbroadcast`` where shapes may differ, and accumulates the result with ``add``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules import Rule, rule_named

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import (
    JVP_PAIR,
    PAIR_FORWARD,
    PAIR_PART,
    REVERSE_PAIR,
    Block,
    Function,
    Op,
    Value,
    const_value,
)
from ..spelling import derivative_spelling
from ..structural import STRUCTURAL
from ..symbolic import Sym, record_rule, to_value
from .activity import rule_of
from .soundness import written_at


class Scope:
    def __init__(self, fn: Function, primal: Block, builder: Builder, active: set[int],
                 owner: dict[int, Block], parent: Scope | None = None,
                 local: Callable[[Value], Value] | None = None) -> None:
        self.fn = fn
        self.primal = primal
        self.builder = builder
        self.active = active
        self.owner = owner
        self.parent = parent
        self._local = local
        self.table: dict[int, Value] = {}
        self.primal_of: dict[int, Value] = {}  # value id -> the primal value (for exports)
        self._visible: dict[int, Value] = {}
        self._shapes: dict[int, Any] = {}
        self._dtypes: dict[int, Any] = {}
        # a recursive call's (value, tangent) pair -> its items' cotangents (see _pair_part)
        self._parts: dict[int, dict[int, Value]] = {}

    # --- values as seen from this scope's adjoint block --------------------------------
    def visible(self, v: Value) -> Value:
        is_const, c = const_value(v)
        if is_const:
            return self.builder.const(c)
        if v.id in self._visible:
            return self._visible[v.id]
        block = self.owner.get(v.id)
        if block is self.primal and self._local is not None:
            out = self._local(v)
        elif block is self.primal or self.parent is None:
            out = v
        else:
            out = self.parent.visible(v)
        self._visible[v.id] = out
        return out

    def sym(self, v: Value) -> Any:
        """What a rule body sees for primal ``v``: its constant, or a Sym of it here."""
        is_const, c = const_value(v)
        return c if is_const else Sym(self.visible(v))

    def shape_of(self, x: Value) -> Any:
        if x.type is not None and x.type.known_ndim == 0:
            return ()
        is_const, c = const_value(x)
        if is_const:
            return np.shape(c)
        if x.id not in self._shapes:
            self._shapes[x.id] = self._metadata(x, "shape")
        return self._shapes[x.id]

    def _metadata(self, x: Value, what: str) -> Any:
        """``np.shape(x)`` (or its dtype) as seen here. For a value of this region, it is
        computed in the primal region and that small tuple is exported (taped), not ``x``."""
        if self._local is not None and self.owner.get(x.id) is self.primal:
            op = Op(what, {"x": x}, [Value(type=T.STATIC)], {"rule": rule_named(what)})
            ops = self.primal.ops
            at = ops.index(x.op) + 1 if x.op is not None and x.op in ops else 0
            ops.insert(at, op)
            self.owner[op.out.id] = self.primal
            return Sym(self.visible(op.out))
        out = record_rule(rule_named(what), [Sym(self.visible(x))], {})
        out.value.type = T.STATIC
        return out

    def dtype_of(self, x: Value) -> Any:
        if x.type is not None and x.type.dtype is not None:
            return np.dtype(x.type.dtype)
        if x.id not in self._dtypes:
            self._dtypes[x.id] = self._metadata(x, "dtype")
        return self._dtypes[x.id]

    # --- adjoints ---------------------------------------------------------------------
    def accumulate(self, x: Value, ct: Value) -> None:
        old = self.table.get(x.id)
        if old is not None:
            add = STRUCTURAL["add_items"] if _is_collected_list(x) else rule_named("add")
            ct = record_rule(add, [Sym(old), Sym(ct)], {}).value
        if ct.op is not None and ct.op.prim == "const":
            ct = record_rule(STRUCTURAL["stop_gradient"], [Sym(ct)], {}).value
        if ct.adjoint_of is None and ct.op is not None:
            ct.adjoint_of = x
        self.table[x.id] = ct
        self.primal_of[x.id] = x

    def zeros_like(self, x: Value) -> Value:
        """Zeros of primal ``x``'s type and shape, in this scope."""
        return record_rule(STRUCTURAL["zeros_of"], [Sym(self.visible(x))], {}).value

    def free_contributions(self) -> list[tuple[Value, Value]]:
        """(primal value, adjoint) for values defined outside this scope's block."""
        out = []
        for vid, adj in self.table.items():
            primal = self.primal_of[vid]
            if self.owner.get(vid) is not self.primal:
                out.append((primal, adj))
        return out

    # --- one primitive op -------------------------------------------------------------
    def backprop_op(self, op: Op) -> None:
        if op.prim == "call":
            name = getattr(op.attrs["fn"], "__qualname__", repr(op.attrs["fn"]))
            raise SrcGradError(
                f"the call to {name}{written_at(op)} has no derivative rule and no Python "
                "source to differentiate.", filename=self.fn.filename, lineno=op.line,
                advice=f"Register its derivative with sg.defvjp({name}, ...), or wrap the "
                       "value in sg.stop_gradient if no gradient should flow through it.")
        if PAIR_PART in op.attrs:
            self._pair_part(op)
            return
        if JVP_PAIR in op.attrs and op.outputs[0].id in self._parts:
            self._pair_seed(op)
        if REVERSE_PAIR in op.attrs and self.fn.meta.get("pairs") and self._reverse_pair(op):
            return
        rule = rule_of(op)
        if rule is None:
            if op.prim in ("make_tuple", "make_list"):
                self._unpack(op)
                return
            if op.prim in ("const", "make_slice"):
                return  # static data: nothing flows back through it
            raise SrcGradError(f"internal: no reverse rule for the IR op {op.prim}",
                               filename=self.fn.filename, lineno=op.line)
        g = self.table[op.outputs[0].id]
        for name in rule.inputs:
            if name not in rule.vjp or name not in op.args:
                continue
            arg = op.args[name]
            if isinstance(arg, tuple):
                for i, x in enumerate(arg):
                    if x.id in self.active:
                        self.accumulate(x, self._call_vjp(rule, name, op, g, i))
                continue
            if arg.id in self.active:
                ct = self._call_vjp(rule, name, op, g, None)
                if rule.broadcasts and not _same_shape(rule, op, name):
                    ct = record_rule(rule_named("unbroadcast"), [Sym(ct)],
                                     {"shape": self.shape_of(arg)}).value
                self.accumulate(arg, ct)

    def _reverse_pair(self, op: Op) -> bool:
        """A recursive call in code reverse mode emits (``ir.core.REVERSE_PAIR``): the
        call becomes the callee's forward sweep, giving its value and a record of what its
        adjoint needs, and its adjoint the callee's adjoint on that record, so no level
        reruns the forward sweep of the levels below it. False: the callee has no pair
        (its adjoint stays the rule's, which recomputes)."""
        rule = rule_of(op)
        assert rule is not None
        active = tuple(n for n in rule.inputs if isinstance(op.args.get(n), Value)
                       and op.args[n].id in self.active)
        rules = op.attrs[REVERSE_PAIR](active)
        if rules is None:
            return False
        forward, adjoint = rules
        out = op.outputs[0]
        sweep = Block()
        with Builder(sweep, line=op.line) as b:
            pair = b.emit(forward.name, dict(op.args), attrs={"rule": forward}).out
            getitem = rule_named("getitem")
            value, record = (record_rule(getitem, [Sym(pair)], {"index": k}).value
                             for k in (0, 1))
        assert value.op is not None
        value.op.outputs = [out]
        out.op = value.op
        k = self.primal.ops.index(op)
        self.primal.ops[k:k + 1] = sweep.ops
        for new in sweep.ops:
            new.attrs[PAIR_FORWARD] = True
            for o in new.outputs:
                self.owner[o.id] = self.primal
        self.active.update((pair.id, record.id))  # (out is active: it has an adjoint)
        g = self.table[out.id]
        ct = self.builder.emit(adjoint.name, {"record": self.visible(record), "seed": g},
                               attrs={"rule": adjoint}).out
        for k, name in enumerate(active):
            part = ct if len(active) == 1 else record_rule(
                rule_named("getitem"), [Sym(ct)], {"index": k}).value
            self.accumulate(op.args[name], part)
        return True

    def _pair_part(self, op: Op) -> None:
        """Item k of a recursive call's (value, tangent) pair (``ir.core.PAIR_PART``): its
        cotangent is kept for the pair's seed, a tuple, built when the call is reached."""
        pair = op.args["x"]
        g = self.table.get(op.outputs[0].id)
        if g is None or pair.id not in self.active:
            return
        self._parts.setdefault(pair.id, {})[op.attrs[PAIR_PART]] = g
        # the call must be visited: its table entry is replaced by the tuple there
        self.table.setdefault(pair.id, g)
        self.primal_of[pair.id] = pair

    def _pair_seed(self, op: Op) -> None:
        """The seed of a (value, tangent) pair's call: its items' cotangents as a tuple, a
        zero for an item nothing read."""
        pair = op.outputs[0]
        parts = self._parts.pop(pair.id)
        getitem = rule_named("getitem")
        items = []
        for k in (0, 1):
            if k in parts:
                items.append(parts[k])
                continue
            item = record_rule(getitem, [self.sym(pair)], {"index": k})
            items.append(record_rule(STRUCTURAL["zeros_of"], [item], {}).value)
        self.table[pair.id] = self.builder.emit("make_tuple", {"items": tuple(items)}).out

    def _unpack(self, op: Op) -> None:
        """A tuple or list of run-time values (appended in a run-time loop, or handed to a
        derived function): item k's cotangent is item k of the container's, whether that
        arrived as a list or as a row of the array ``np.array(items)`` made of it."""
        g = self.table.get(op.outputs[0].id)
        if g is None:
            return
        for k, item in enumerate(op.args["items"]):
            if item.id in self.active:
                self.accumulate(item, record_rule(rule_named("getitem"), [Sym(g)],
                                                  {"index": k}).value)

    def _call_vjp(self, rule: Rule, name: str, op: Op, g: Value, i: int | None) -> Value:
        env: dict[str, Any] = {}
        for need in rule.needs[name]:
            if need == "g":
                env["g"] = Sym(g)
            elif need == "out":
                env["out"] = self.sym(op.outputs[0])
            elif need == "i":
                env["i"] = i
            elif need.endswith("_shape") and need[:-6] in rule.inputs:
                env[need] = self._per_input(op, need[:-6], self.shape_of)
            elif need.endswith("_dtype") and need[:-6] in rule.inputs:
                env[need] = self._per_input(op, need[:-6], self.dtype_of)
            else:
                a = op.args.get(need)
                if isinstance(a, tuple):
                    env[need] = tuple(self.sym(v) for v in a)
                else:
                    env[need] = None if a is None else self.sym(a)
        try:
            with derivative_spelling(rule, op.attrs):
                result = rule.call_vjp(name, env)
        except SrcGradError:
            raise
        except Exception as e:
            raise SrcGradError(f"the derivative rule of {rule.name} failed on this call: {e}",
                               filename=self.fn.filename, lineno=op.line) from None
        return to_value(result)

    @staticmethod
    def _per_input(op: Op, name: str, get: Any) -> Any:
        a = op.args[name]
        if isinstance(a, tuple):
            return tuple(get(v) for v in a)
        return get(a)


def _is_collected_list(x: Value) -> bool:
    """Is ``x`` a list a loop collected at run time (``hs.append(h)``)? Its adjoint is a
    list too, so two of them add item by item."""
    op = x.op
    if op is None or not op.attrs.get("collect"):
        return False
    return op.outputs.index(x) >= len(op.outputs) - op.attrs["collect"]


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


def owners(fn: Function) -> dict[int, Block]:
    """Value id -> the block that defines it (function parameters: the body)."""
    owner: dict[int, Block] = {p.id: fn.body for p in fn.params}

    def walk(block: Block) -> None:
        for p in block.params:
            owner[p.id] = block
        for op in block.ops:
            for o in op.outputs:
                owner[o.id] = block
            for r in op.regions:
                walk(r)

    walk(fn.body)
    return owner
