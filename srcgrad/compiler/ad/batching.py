"""Batched forward mode: one op's tangent rows from its inputs' tangent rows.

``forward(..., batched=True)`` carries ``k`` tangents at once, each tangent value an array
with a leading row axis (``(k,) + primal.shape``), so ``sg.hessian`` and ``sg.jacobian``
run one pass instead of one per column. Batching is a property of the transform, decided
per kind of rule, not per rule:

- elementwise rules (their forward formula is pointwise in the tangent): the tangent of
  each input gets the output's rank behind the row axis (``rows_expand``), so it
  broadcasts as its primal did, then the rule's own formula runs on it unchanged;
- linear shape-aware primitives (indexing, scattering, (un)broadcasting, reductions,
  casts, a matmul with one constant operand of rank <= 2) have a row-keeping form in
  :mod:`..rows`, which shifts their axes past the row axis;
- anything else raises :class:`Unbatchable` at compile time, and the caller computes the
  columns one pass at a time, as before (never a silently wrong row).
"""

from __future__ import annotations

from typing import Any

from srcgrad.rules import ELEMENTWISE, LINEAR, NONDIFF, forward_tangent, rule_named

from ..ir.builder import Builder
from ..ir.core import Function, Op, Value, const_value
from ..rows import ROW_RULES, Unbatchable
from ..symbolic import Sym, record_rule, to_value
from .accumulate_rows import add_rows_in_place
from .ranks import Facts

# linear primitives whose tangent is the same primitive applied to each row: the rule's
# params, in order, handed to its row-keeping form
_ROW_FORMS = {
    "getitem": ("rows_getitem", ("index",)),
    "scatter_add": ("rows_scatter_add", ("shape", "index")),
    "unbroadcast": ("rows_unbroadcast", ("shape",)),
    "rebroadcast": ("rows_rebroadcast", ("shape",)),
    "unreduce": ("rows_unreduce", ("shape", "axis", "keepdims")),
    "sum": ("rows_sum", ("axis", "keepdims")),
    "mean": ("rows_mean", ("axis", "keepdims")),
    "stack_list": ("rows_stack_list", ("axis",)),
    "unstack": ("rows_unstack", ("axis",)),
}
# (un)broadcasts to a shape: identities on a tangent that already has it
_SHAPED = frozenset({"unbroadcast", "rebroadcast"})
# identities on the tangent (seed checks, float(), a copy)
_IDENTITY = frozenset({"checked_seed", "seed_of_shape", "float", "positive", "copy"})


def rows_tangent(rule: Any, op: Op, env: dict[str, Any], given: dict[str, Any],
                 facts: Facts) -> Value | None:
    """The tangent rows of ``op``'s output, or :class:`Unbatchable`; ``facts`` are the
    primal values' ranks and equal shapes known at compile time (:mod:`.ranks`)."""
    if rule.user:  # (a user's rule may be named like a primitive: never taken for one)
        return _each(rule, op, env, given)
    name = rule.name
    if rule.kind == LINEAR:  # (an input it is not linear in, like x of like(d, x), is
        # not differentiable: its tangent does not reach the output)
        given = {n: t for n, t in given.items() if n in rule.vjp}
    if rule.kind == NONDIFF or not given:
        return None
    if name in _IDENTITY and len(given) == 1:
        return next(iter(given.values())).value
    if name in _SHAPED and set(given) == {"x"} and facts.same_shape([op.args["x"], op.out]):
        return given["x"].value  # (x has the shape it is sent to: nothing to do per row)
    if name in _ROW_FORMS and set(given) == {rule.inputs[0]}:
        form, params = _ROW_FORMS[name]
        t = given[rule.inputs[0]]
        return _row(form, [t, *(_sym(op.args.get(p)) for p in params)])
    if name == "like" and set(given) == {"d"}:
        return _row("rows_like", [given["d"], _sym(op.args["x"])])
    if name == "add_items":  # item by item: the same sum of the item rows
        if len(given) == 1:
            return next(iter(given.values())).value
        return record_rule(rule, [given["xs"], given["ys"]], {}).value
    if name == "matmul":
        return _matmul(op, given)
    if name == "multiply" and len(given) == 1 and _by_seed(op, given, facts):
        seed = op.args["y" if "x" in given else "x"]
        if all(s is not seed for s in facts.seeds):
            facts.seeds.append(seed)
        return next(iter(given.values())).value
    if rule.kind == ELEMENTWISE and not rule.user and rule.variadic is None \
            and not any(n in rule.jvp for n in given):
        return _elementwise(rule, op, env, given, facts)
    return _each(rule, op, env, given)


def _each(rule: Any, op: Op, env: dict[str, Any], given: dict[str, Any]) -> Value:
    """Any other rule: its forward tangent computed row by row (:func:`..rows.rows_each`)."""
    if not _shared(rule):
        raise Unbatchable(f"{rule.name}() has derivatives recorded at compile time only")
    if rule.variadic is not None or rule.call_form.star is not None or rule.structural \
            or any(isinstance(t, list) for t in given.values()) \
            or any(op.args[n].type is not None and op.args[n].type.kind in ("list", "tuple")
                   for n in given):
        raise Unbatchable(f"{rule.name}() with a sequence of inputs has no batched form")
    names = ("out", *(n for n in (*rule.inputs, *rule.params) if n in op.args))
    args = tuple(_sym(op.outputs[0]) if n == "out" else _sym(op.args[n]) for n in names)
    active = tuple(given)
    return _row("rows_each", [rule, names, args, active, tuple(given[n] for n in active)])


def _elementwise(rule: Any, op: Op, env: dict[str, Any], given: dict[str, Any],
                 facts: Facts) -> Value | None:
    def _ndim(v: Any) -> int | None:
        return facts.rank[v.id] if isinstance(v, Value) and v.id in facts.rank else _rank(v)

    out = op.outputs[0]
    out_ndim = _ndim(out)
    expanded = {}
    for n, t in given.items():
        if isinstance(t, list):
            raise Unbatchable(f"{rule.name}() with a sequence input has no batched form")
        a = op.args.get(n)
        same_rank = out_ndim is not None and a is not None and _ndim(a) == out_ndim
        expanded[n] = t if same_rank else Sym(_row("rows_expand", [t, _sym(out)]))
    t = forward_tangent(rule, env, expanded, rows=True)
    if t is None:
        return None
    if not rule.broadcasts or (out_ndim == 0 and all(_ndim(op.args[n]) == 0 for n in given)) \
            or facts.same_shape([out, *(op.args[n] for n in given)]):
        return to_value(t)  # every contribution already has the output's shape
    shape = record_rule(rule_named("shape"), [Sym(out)], {})
    return _row("rows_rebroadcast", [t, shape])


def _matmul(op: Op, given: dict[str, Any]) -> Value:
    """``x @ y`` with one operand's tangent rows and the other operand of rank <= 2."""
    x, y = op.args["x"], op.args["y"]
    total = None
    for n, t in given.items():
        other = y if n == "x" else x
        mine = x if n == "x" else y
        if _rank(other) not in (1, 2) or _rank(mine) not in (1, 2):
            raise Unbatchable("matmul of arrays of unknown rank or rank > 2 has no batched "
                              "form")
        term = (_row("rows_matmul", [t, _sym(y)]) if n == "x"
                else _row("rows_rmatmul", [_sym(x), t]))
        total = term if total is None else record_rule(
            rule_named("add"), [Sym(total), Sym(term)], {}).value
    assert total is not None
    return total


def _by_seed(op: Op, given: dict[str, Any], facts: Facts) -> bool:
    """``t * seed``, ``seed`` the one a gradient starts from (``seed_one`` of a 0-d
    result): exactly ``t`` (times 1) in every row. A reverse sweep in a loop multiplies by
    it per element read (``dx[i] += x[i + 1] * seed``); in the rows of a Hessian that was
    two ``(k,)`` products a trip, 40% of the pass. The rows keep their dtype, at least the
    argument's; the Hessian's dtype is the argument's either way (``like`` casts it)."""
    other = op.args.get("y" if "x" in given else "x")
    return (isinstance(other, Value) and other.op is not None
            and other.op.prim == "seed_one" and facts.rank.get(other.id) == 0
            and other.id in facts.top_level)


def finish_rows(fn: Function) -> None:
    """After the batched transform: the sums of element-read adjoints added in place
    (:mod:`.accumulate_rows`), and the result rows returned through ``rows_after`` of
    the seeds :func:`_by_seed` left out of products, so the user's function still runs
    as the gradient's does (and raises where it raises) though no row reads its value."""
    add_rows_in_place(fn)
    seeds = fn.meta["ranks"].seeds
    if not seeds or not fn.body.results:
        return
    with Builder(fn.body, line=fn.meta.get("return_line")):
        for seed in seeds:
            fn.body.results[-1] = record_rule(
                ROW_RULES["rows_after"], [Sym(fn.body.results[-1]), Sym(seed)], {}).value


def _shared(rule: Any) -> bool:
    """A rule of the shared table, whose forward formula also runs on arrays (a user's rule
    or one the frontend made for a recursive call may record IR only)."""
    try:
        return not rule.user and rule_named(rule.name) is rule
    except LookupError:
        return False


def _row(form: str, args: list[Any]) -> Value:
    args = [Sym(a) if isinstance(a, Value) else a for a in args]
    return record_rule(ROW_RULES[form], args, {}).value


def _rank(v: Any) -> int | None:
    if v is None:
        return None
    is_const, c = const_value(v)
    if is_const:
        import numpy as np
        return int(np.ndim(c))
    return v.type.known_ndim if v.type is not None else None


def _sym(v: Any) -> Any:
    if v is None:
        return None
    is_const, c = const_value(v)
    return c if is_const else Sym(v)
