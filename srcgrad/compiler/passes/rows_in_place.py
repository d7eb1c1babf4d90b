"""In-place arithmetic on a batched pass's own tangent rows (``sg.hessian``, ``sg.jacobian``).

Runs last in the pipeline, on a batched forward derivative only (``fn.meta["batched"]``),
after :mod:`.accumulate` (whose marks need float64 shape classes, which tangent rows of
unknown type never have). The tangent rows of a vectorised function are ``(k, n)`` arrays,
one per op; written as plain expressions each op allocates another, and a dozen of them
alive at once made the heap grow and be trimmed at every call, page-faulting every array
back in (``sg.hessian`` of a vectorised Rosenbrock at n = 100: 80-130 page faults a call,
more than half its time). Here an arithmetic op whose operand is a temporary array of rows
that dies there is marked to update it in place, as the backend writes ``dp -= t``:

    %7 = multiply(x=%5, y=%4)                 _t7 = _t5 * _t4
    %8 = subtract(x=%3, y=%7)      ->         _t3 = _t3 - _t7    (a view of the tangent)
    %9 = multiply(x=%8, y=200.0)              _t3 *= 200.0        (marked: _t3 owns it)

It is marked only when that is the same computation:

- the updated operand is tangent rows made by this op's predecessor alone (a fresh result
  of arithmetic, read only here), never the tangent, a view of it or a primal value;
- the result has its shape: every operand is rows of one primal shape (a *shape key* of
  :mod:`..ad.ranks`, which knows ``x[1:]`` and ``x[:-1]`` have one shape), a primal
  value of that shape (it broadcasts over the rows) or a 0-d value;
- its dtype: float64 rows (the tangent of a float64 argument) with float64 or Python-number
  operands only.

The rows arrays the function makes are also listed in ``fn.meta["row_arrays"]`` so the
backend frees them where they die (``backend/frees.py``), as it frees typed arrays.
Only the top-level block is marked: in a loop over elements the rows are ``(k,)`` vectors,
whose statements would cost more than their allocations.
"""

from __future__ import annotations

from typing import Any

from srcgrad.rules import ELEMENTWISE

from ..ad.ranks import Facts, sliced_key, value_ranks
from ..ad.tape import pair_tapes
from ..ir.core import Function, Op, Value, const_value
from ..rows import ROW_RULES
from .shape_classes import plain_classes

ROWS_IN_PLACE = "rows_in_place"  # the mark nesting keeps as a statement of its own

_UPDATED = {"add": ("x", "y"), "multiply": ("x", "y"), "subtract": ("x",), "divide": ("x",)}
_ROW_RULE_IDS = {id(r) for r in ROW_RULES.values()}
_GETITEM, _ADD_AT = ROW_RULES["rows_getitem"], ROW_RULES["rows_add_at"]
# the row rules whose result has the shape key their first input or shape says
_KEPT_BY = {id(ROW_RULES[n]) for n in ("rows_getitem", "rows_scatter_add", "rows_add_at",
                                       "rows_unbroadcast", "rows_rebroadcast")}


def rows_in_place(fn: Function) -> None:
    for op in fn.body.ops:
        op.attrs.pop(ROWS_IN_PLACE, None)
    if not fn.meta.get("batched") or fn.meta.get("tuple_wrt") or not fn.params:
        return
    rows = _Rows(fn)
    fn.meta["row_arrays"] = frozenset(v for v, k in rows.key.items() if k is not None)
    uses = fn.body.use_counts()
    params = {p.id for p in fn.params}
    for op in fn.body.ops:
        keys = _UPDATED.get(op.prim)
        if keys is None or "accumulate" in op.attrs or len(op.outputs) != 1 \
                or set(op.args) != {"x", "y"} or not rows.float64_rows(op.out):
            continue
        for key in keys:
            acc = op.args[key]
            if isinstance(acc, Value) and rows.float64_rows(acc) \
                    and rows.key[acc.id] == rows.key[op.out.id] and _owned(acc, params, uses):
                op.attrs["accumulate"] = key
                op.attrs[ROWS_IN_PLACE] = True
                break


def _owned(v: Value, params: set[int], uses: dict[int, int]) -> bool:
    rule = v.op.attrs.get("rule") if v.op is not None else None
    return (v.id not in params and rule is not None and rule.fresh and not rule.user
            and uses.get(v.id) == 1)


class _Rows:
    """The top-level values made from the tangent rows, with the shape key of the primal
    shape behind their row axis (None: not known) and whether they are float64."""

    def __init__(self, fn: Function) -> None:
        self.facts: Facts = value_ranks(fn, pair_tapes(fn))
        self.classes = plain_classes(fn)
        tangent = fn.params[-1]
        self.key: dict[int, Any] = {}
        self.f64: set[int] = set()
        wrt = fn.meta.get("wrt", ())
        x = fn.params[wrt[0]] if len(wrt) == 1 and wrt[0] < len(fn.params) - 1 else None
        if x is not None:  # (the rows sg.jacobian/sg.hessian pass have x's float dtype)
            self.key[tangent.id] = self.facts.key.get(x.id)
            if x.type is not None and x.type.kind == "array" and x.type.dtype == "float64":
                self.f64.add(tangent.id)
        else:
            self.key[tangent.id] = None
        for op in fn.body.ops:
            if any(v.id in self.key for v in op.operands()):
                self.visit(op)

    def float64_rows(self, v: Value) -> bool:
        return self.key.get(v.id) is not None and v.id in self.f64

    def visit(self, op: Op) -> None:
        for o in op.outputs:  # (anything made from rows is rows, known or not)
            self.key[o.id] = None
        rule = op.attrs.get("rule")
        if op.regions or len(op.outputs) != 1 or rule is None:
            return
        out, a = op.out, op.args
        if id(rule) in _ROW_RULE_IDS:
            first = a.get(rule.inputs[0]) if id(rule) in _KEPT_BY else None
            if not isinstance(first, Value) \
                    or first.id not in self.key:
                return
            if rule is _GETITEM:
                self.key[out.id] = sliced_key(self.key[first.id], a.get("index"))
            else:
                shaped = self.facts.shape_key.get(a["shape"].id) \
                    if isinstance(a.get("shape"), Value) else None
                if rule is _ADD_AT \
                        and self.key[first.id] != shaped:
                    return
                self.key[out.id] = shaped
            if all(v.id in self.f64 for v in op.operands() if v.id in self.key):
                self.f64.add(out.id)
            return
        if rule.kind != ELEMENTWISE or rule.params or rule.user or rule.variadic is not None:
            return
        keys, f64 = set(), True
        for v in op.operands():
            if v.id in self.key:  # rows: their key exactly (rows of a 0-d value are (k,))
                keys.add(self.key[v.id])
                f64 = f64 and v.id in self.f64
                continue
            if not self.zero_d(v):  # a primal value broadcasts over the rows
                keys.add(self.facts.key.get(v.id))
            f64 = f64 and (self.classes.is_float64(v) or self.classes.is_weak(v)
                           or _number(v))
        if len(keys) == 1 and None not in keys:
            self.key[out.id] = keys.pop()
            if f64:
                self.f64.add(out.id)

    def zero_d(self, v: Value) -> bool:
        return self.facts.rank.get(v.id) == 0 or _number(v) or (
            v.type is not None and v.type.known_ndim == 0)


def _number(v: Value) -> bool:
    is_const, c = const_value(v)
    return is_const and type(c) in (int, float, bool)
