"""Forward mode: primal IR -> IR computing the primal and its tangent alongside.

Each op a tangent reaches gets its tangent computed right after it, by
``srcgrad.rules.forward.forward_tangent`` called on symbolic values (so the rule table's
derivation by kind is recorded as IR, never written here). Control flow carries tangents
with the values: an ``if`` yields the tangents of its outputs from each branch, a loop
carries the tangents of its carried values, so no tape is needed. The derived function
returns ``(f(*args), tangent of the result)``, the tangent nested like a (nested) tuple or
list result; for a tuple ``wrt`` the tangent argument is a tuple and the result is the
one summed directional derivative.

    %y = sin(x=%x)          ->   %y = sin(x=%x)
                                 %0 = cos(x=%x)
                                 %dy = multiply(x=%tangent, y=%0)
"""

from __future__ import annotations

from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import NoDerivativeError, forward_tangent, rule_named

from ..ir import types as T
from ..ir.builder import Builder, clone_function, current
from ..ir.core import JVP_PAIR, TANGENT_CODE, Block, Function, Op, Value, const_value
from ..passes.rewrite import replace_uses
from ..rows import ROW_RULES
from ..spelling import derivative_spelling
from ..structural import STRUCTURAL
from ..symbolic import Sym, record_rule, to_value
from .activity import can_carry, checked_varied_values, rule_of, useful_values
from .batching import finish_rows, rows_tangent
from .checkpoint import strip_primal_marks
from .prune import drop_dead_carries
from .ranks import value_ranks
from .soundness import reaches_result
from .tape import TAPE_PRIMS, forward_tape_op, pair_tapes

JVP = "jvp"
JVP_ROWS = "jvp_rows"  # internal: batched tangents, for sg.jacobian and sg.hessian
_STATIC = ("const", "make_tuple", "make_list", "make_slice", "print", "assert", "raise")


def forward(primal: Function, wrt: tuple[int, ...], tuple_wrt: bool,
            batched: bool = False) -> Function:
    """The forward-mode IR of ``primal``; with ``batched`` the tangent (each item of a
    tuple one) has a leading axis of directions and every tangent keeps it (see
    :mod:`.batching`, which raises :class:`~.batching.Unbatchable` for an op it cannot
    batch)."""
    fn, _ = clone_function(primal)
    strip_primal_marks(fn)  # sg.checkpoint saves memory in reverse mode only: a no-op here
    fn.name = f"jvp_{primal.name}"
    tangent = Value(name="tangent", type=T.ANY)
    fn.params.append(tangent)
    fn.meta["varied"] = checked_varied_values(fn, [fn.params[i] for i in wrt])
    fn.meta["tapes"] = pair_tapes(fn)
    fn.meta["useful"] = useful_values(fn)
    fn.meta["rows"] = None  # batched: a tangent whose leading length zeros take
    fn.meta["ranks"] = value_ranks(fn, fn.meta["tapes"]) if batched else None
    tangents: dict[int, Value] = {}
    prelude = Block()
    with Builder(prelude):
        for k, i in enumerate(wrt):
            p = fn.params[i]
            if p.type is not None and p.type.is_integral:
                continue
            t = tangent if not tuple_wrt else record_rule(
                rule_named("getitem"), [Sym(tangent)], {"index": k}).value
            if batched:  # (made internally by sg.jacobian/sg.hessian: no shape check)
                fn.meta["rows"] = fn.meta["rows"] or t
                _add(tangents, p, t)
            else:
                _add(tangents, p, _shaped_tangent(t, p))
    fn.body.ops[:0] = prelude.ops
    _block(fn, fn.body, [tangents])
    outputs = list(fn.body.results)
    t_outs = []
    with Builder(fn.body, line=fn.meta.get("return_line")) as b:
        for out in outputs:
            t_out = tangents.get(out.id)
            is_const, constant = const_value(out)
            if t_out is None and is_const and (constant is None or type(constant) in
                                               (int, bool, str)):
                # a static None/str/int/bool item of a tuple result: None and a str have
                # no tangent, an int or bool a zero int (not a 0-d array)
                t_outs.append(b.const(0 if type(constant) in (int, bool) else None))
                continue
            if t_out is None:
                t_out = _zeros(fn, out)
            elif t_out is tangent:
                t_out = record_rule(STRUCTURAL["stop_gradient"], [Sym(t_out)], {}).value
            t_out.adjoint_of = t_out.adjoint_of or out
            t_outs.append(t_out)
        del b
    # a (nested) tuple or list result has a tangent of the same structure
    result_tree = fn.meta.get("returns", 0)
    tangent_tree = _shift(result_tree, len(outputs))
    fn.body.results = [*outputs, *t_outs]
    returns: Any = [result_tree, tangent_tree]
    if batched:  # only the tangent rows (their shape says the result's): the value's own
        # computation, a Hessian's gradient itself, is dead code then
        fn.body.results, returns = t_outs, result_tree
        finish_rows(fn)
    # a loop carries the tangent of every carried value that varies, also of one that only
    # feeds the next trip's value (Newton's fx and dfx): dropped unless something reads it
    drop_dead_carries(fn)
    del fn.meta["varied"], fn.meta["tapes"], fn.meta["useful"], fn.meta["rows"]
    del fn.meta["ranks"]
    fn.meta.update(transform=JVP, wrt=wrt, tuple_wrt=tuple_wrt,
                   returns=returns, tuple_result=isinstance(returns, list), batched=batched)
    return fn


def forward_directions(primal: Function, wrt: tuple[int, ...]) -> tuple[Function, list[Value]]:
    """Forward mode along each ``wrt`` argument (a number) at once: one tangent per
    direction, each seeded with the constant ``1.0`` (no tangent parameter), carried side
    by side through one pass. Returns the IR (results unchanged) and the tangent of its
    first result in each direction, for :mod:`.tangent_grad` to return."""
    fn, _ = clone_function(primal)
    strip_primal_marks(fn)
    fn.meta["varied"] = checked_varied_values(fn, [fn.params[i] for i in wrt])
    fn.meta["tapes"] = pair_tapes(fn)
    fn.meta["useful"] = useful_values(fn)
    fn.meta["rows"] = None
    # the seeds stand in as values of unknown kind while the tangents are derived (so no
    # rule folds or retypes around a constant 1.0), then become the constant
    seeds = [Value(type=T.ANY) for _ in wrt]
    dirs = [{fn.params[i].id: seed} for i, seed in zip(wrt, seeds)]
    _block(fn, fn.body, dirs)
    out = fn.body.results[0]
    with Builder(fn.body, line=None):
        t_outs = [d[out.id] if out.id in d else _zeros(fn, out) for d in dirs]
    ones = [Op("const", {}, [Value(type=T.FLOAT)], {"value": 1.0}) for _ in wrt]
    fn.body.ops[:0] = ones
    replace_uses(fn, {seed: one.out for seed, one in zip(seeds, ones)})
    t_outs = [ones[seeds.index(t)].out if t in seeds else t for t in t_outs]
    del fn.meta["varied"], fn.meta["tapes"], fn.meta["useful"], fn.meta["rows"]
    return fn, t_outs


def _shaped_tangent(t: Value, p: Value) -> Value:
    """``t``, checked when the derivative runs to have argument ``p``'s shape (it failed
    with NumPy's broadcasting error inside the emitted code, or broadcast silently). Only a
    number or array argument is checked: a packed tuple's tangent is taken apart by index
    (its nesting is checked there), and the generic version knows no kind."""
    if p.type is None or p.type.kind not in ("float", "scalar", "array"):
        return t
    shape: Any = ()
    if p.type.known_ndim != 0:
        shape = record_rule(rule_named("shape"), [Sym(p)], {})
        shape.value.type = T.STATIC
    return record_rule(STRUCTURAL["tangent_of_shape"], [Sym(t)], {"shape": shape}).value


def _shift(tree: Any, by: int) -> Any:
    """``tree`` (a ``returns`` tree) with every result index moved ``by`` places."""
    if isinstance(tree, list):
        return [_shift(t, by) for t in tree]
    if isinstance(tree, tuple):
        return (tree[0], [_shift(t, by) for t in tree[1]])
    return tree + by


def _add(tangents: dict[int, Value], v: Value, t: Value) -> None:
    old = tangents.get(v.id)
    if old is not None:
        t = record_rule(rule_named("add"), [Sym(old), Sym(t)], {}).value
    if t.adjoint_of is None and t.op is not None:
        t.adjoint_of = v  # named d + the primal's name, like adjoints
    tangents[v.id] = t


def _block(fn: Function, block: Block, dirs: list[dict[int, Value]]) -> None:
    """Insert tangent computations after each op of ``block`` a tangent reaches, for each
    direction (one tangent map per direction: several only for :func:`forward_directions`)."""
    old_ops = block.ops
    block.ops = []
    for op in old_ops:
        if op.regions:  # tangent initial values go before the op, its tangents after it
            before = Block()
            with Builder(before, line=op.line):
                if op.prim == "if":
                    _if(fn, op, dirs)
                else:
                    _loop(fn, op, dirs)
            block.ops += [*before.ops, op]
            continue
        # a recursive call's forward-mode pair carries one tangent (several directions or
        # tangent rows take the call's own rules, op by op)
        if JVP_PAIR in op.attrs and len(dirs) == 1 and fn.meta["rows"] is None \
                and any(v.id in dirs[0] for v in op.operands()):
            with Builder(block, line=op.line):
                if _pair(op, dirs[0]):
                    continue
        block.ops.append(op)
        start = len(block.ops)
        with Builder(block, line=op.line):
            for d, tangents in enumerate(dirs):
                _op(fn, op, tangents, d)
        for made in block.ops[start:]:  # (marked so their arithmetic may be regrouped)
            made.attrs[TANGENT_CODE] = True


def _op(fn: Function, op: Op, tangents: dict[int, Value], direction: int = 0) -> None:
    if op.prim == "call":  # (a call whose results are ints or bools needs no derivative)
        # (a tangent may reach a call whose result nothing uses, through a packed list:
        # np.block([x, x]) assigned and dropped; the soundness check has already
        # refused every call a result depends on)
        if any(v.id in tangents for v in op.operands()) and any(map(can_carry, op.outputs)) \
                and reaches_result(op, fn.meta["useful"]):
            name = getattr(op.attrs["fn"], "__qualname__", repr(op.attrs["fn"]))
            raise SrcGradError(f"the call to {name} has no derivative rule and no Python "
                               "source to differentiate.", filename=fn.filename,
                               lineno=op.line, advice=f"Register its derivative with "
                               f"sg.defjvp({name}, ...).")
        return
    if op.prim in TAPE_PRIMS:
        forward_tape_op(op, tangents, fn.meta["tapes"], typed=fn.meta["rows"] is None,
                        direction=direction)
        return
    if op.prim in ("make_tuple", "make_list") and any(
            v.id in tangents for v in op.args["items"]):
        # a tuple or list of run-time values (one appended in a run-time loop, or handed
        # to a derived function): its tangent is the same container of the items' tangents
        items = [tangents[v.id] if v.id in tangents else _zeros(fn, v)
                 for v in op.args["items"]]
        packed = current().emit(op.prim, {"items": tuple(items)}, types=[op.outputs[0].type])
        _add(tangents, op.outputs[0], packed.out)
        return
    rule = rule_of(op)
    if rule is None:
        if op.prim in _STATIC or not any(v.id in tangents for v in op.operands()):
            return
        raise SrcGradError(f"internal: no forward rule for the IR op {op.prim}",
                           filename=fn.filename, lineno=op.line)
    if not op.outputs:
        return
    given: dict[str, Any] = {}
    for name in rule.inputs:
        a = op.args.get(name)
        if isinstance(a, tuple):
            ts = [tangents.get(v.id) for v in a]
            if any(t is not None for t in ts):
                given[name] = [None if t is None else Sym(t) for t in ts]
        elif a is not None and a.id in tangents:
            given[name] = Sym(tangents[a.id])
    if not given:
        return
    env: dict[str, Any] = {"out": _sym(op.outputs[0])}
    for k, a in op.args.items():
        env[k] = tuple(_sym(v) for v in a) if isinstance(a, tuple) else _sym(a)
        if k == rule.variadic or k == rule.call_form.star:
            env[k] = list(env[k])
    env.update(_metadata(rule, op))
    try:
        with derivative_spelling(rule, op.attrs):
            if fn.meta["rows"] is not None:
                t = rows_tangent(rule, op, env, given, fn.meta["ranks"])
            else:
                t = forward_tangent(rule, env, given)
    except NoDerivativeError as e:
        raise SrcGradError(str(e), filename=fn.filename, lineno=op.line,
                           advice="Register a forward rule with sg.defjvp.") from None
    if t is not None:
        _add(tangents, op.outputs[0], t if isinstance(t, Value) else to_value(t))


def _pair(op: Op, tangents: dict[int, Value]) -> bool:
    """A recursive call a tangent reaches: one call of the callee's forward mode gives its
    value and tangent, replacing the op (its value is the same Value, now taken from the
    pair), so each level runs the rest of the recursion once, not once more per level.
    False (nothing recorded) when the call keeps its rules (see ``recursion._jvp_pair``)."""
    given = {k: tangents[a.id] for k, a in op.args.items()
             if isinstance(a, Value) and a.id in tangents}
    pair = op.attrs[JVP_PAIR](dict(op.args), given)
    if pair is None:
        return False
    value, tangent = pair
    taken = value.op
    assert taken is not None
    taken.outputs = [op.outputs[0]]
    op.outputs[0].op = taken
    _add(tangents, op.outputs[0], tangent)
    return True


def _metadata(rule: Any, op: Op) -> dict[str, Any]:
    """The ``x_shape``/``x_dtype`` entries the rule's derivatives read, as IR (or constants
    where the abstract type knows them), so nothing asks NumPy about a symbolic value."""
    meta: dict[str, Any] = {}
    needs = {n for names in (*rule.needs.values(), *rule.jvp_needs.values()) for n in names}
    for n in needs:
        base, _, what = n.rpartition("_")
        if what not in ("shape", "dtype") or base not in rule.inputs or n in rule.params:
            continue
        a = op.args.get(base)
        items = a if isinstance(a, tuple) else (a,)
        found = tuple(_meta_of(v, what) for v in items if v is not None)
        meta[n] = found if isinstance(a, tuple) else (found[0] if found else None)
    return meta


def _meta_of(v: Value, what: str) -> Any:
    import numpy as np

    t = v.type
    if what == "shape" and t is not None and t.known_ndim == 0:
        return ()
    if what == "dtype" and t is not None and t.dtype is not None:
        return np.dtype(t.dtype)
    is_const, c = const_value(v)
    if is_const:
        return np.shape(c) if what == "shape" else np.result_type(c)
    out = record_rule(rule_named(what), [Sym(v)], {})
    out.value.type = T.STATIC
    return out


def _sym(v: Value) -> Any:
    is_const, c = const_value(v)
    return c if is_const else Sym(v)


def _zeros(fn: Function, v: Value) -> Value:
    """The zero tangent of ``v`` (batched: one zero row per direction)."""
    if fn.meta["rows"] is not None:
        return record_rule(ROW_RULES["rows_zeros"], [Sym(v), Sym(fn.meta["rows"])], {}).value
    return record_rule(STRUCTURAL["zeros_of"], [Sym(v)], {}).value


def _tangent_type(fn: Function, v: Value) -> T.AType:
    """A tangent has its primal's type, except batched (a leading axis of rows)."""
    return T.ANY if fn.meta["rows"] is not None else v.type


def _if(fn: Function, op: Op, dirs: list[dict[int, Value]]) -> None:
    for region in op.regions:
        _block(fn, region, dirs)
    n = len(op.outputs)
    for tangents in dirs:
        _if_outputs(fn, op, tangents, n)


def _if_outputs(fn: Function, op: Op, tangents: dict[int, Value], n: int) -> None:
    """One direction's tangents of the first ``n`` (the primal) outputs of an ``if``."""
    extra = [k for k in range(n) if any(r.results[k].id in tangents for r in op.regions)]
    if not extra:
        return
    for region in op.regions:
        with Builder(region):
            region.results += [tangents[region.results[k].id]
                               if region.results[k].id in tangents
                               else _zeros(fn, region.results[k]) for k in extra]
    for k in extra:
        t = Value(type=_tangent_type(fn, op.outputs[k]))
        t.op = op
        op.outputs.append(t)
        t.adjoint_of = op.outputs[k]
        tangents[op.outputs[k].id] = t


def _loop(fn: Function, op: Op, dirs: list[dict[int, Value]]) -> None:
    """Carry a tangent (one per direction) with each carried value that varies (activity
    decided which)."""
    body = op.regions[-1]
    init = list(op.args["init"])
    n = len(init)
    carried = body.params[1:] if op.prim == "for_range" else body.params
    varied = fn.meta["varied"]
    slots = [k for k in range(n) if carried[k].id in varied]
    lists = [k for k in range(n, len(op.outputs)) if op.outputs[k].id in varied]
    if not slots and not lists:
        # no tangent leaves the loop, but a pop in its body (the reverse pass of a loop
        # whose pushes carry tangents, e.g. a linear step's adjoint) must still take the
        # tangents off the tape, or the tuples it unpacks are longer than it expects
        if any(inner.prim == "tape_pop" for inner in body.walk()):
            _block(fn, body, dirs)
        return
    params = []
    for tangents in dirs:
        for k in slots:
            p = Value(type=_tangent_type(fn, carried[k]))
            p.adjoint_of = carried[k]
            params.append(p)
            tangents[carried[k].id] = p
    _block(fn, body, dirs)
    with Builder(body):
        t_results, t_items = ([tangents[body.results[k].id] if body.results[k].id in tangents
                               else _zeros(fn, body.results[k])
                               for tangents in dirs for k in ks]
                              for ks in (slots, lists))
    # carried, their tangents, collected lists, then the lists of their items' tangents
    body.results = [*body.results[:n], *t_results, *body.results[n:], *t_items]
    body.params += params
    if op.prim == "while":
        op.regions[0].params += [Value(type=p.type) for p in params]
    t_init = [tangents[init[k].id] if init[k].id in tangents else _zeros(fn, init[k])
              for tangents in dirs for k in slots]
    op.args["init"] = (*init, *t_init)
    t_outs = []
    for tangents in dirs:
        for k in slots:
            t = Value(type=_tangent_type(fn, op.outputs[k]))
            t.op = op
            t.adjoint_of = op.outputs[k]
            tangents[op.outputs[k].id] = t
            t_outs.append(t)
    op.outputs[n:n] = t_outs
    shift = len(t_outs)
    for tangents in dirs:
        for k in lists:
            t = Value(type=T.ANY)
            t.op = op
            t.adjoint_of = op.outputs[k + shift]
            tangents[op.outputs[k + shift].id] = t
            op.outputs.append(t)
    if lists:
        op.attrs["collect"] = op.attrs.get("collect", 0) + len(lists) * len(dirs)
