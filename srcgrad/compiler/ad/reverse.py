"""Reverse mode: primal IR -> IR computing the primal and then the adjoints.

The derived function runs a copy of the primal ops, seeds the result's adjoint (``1`` for
``grad``, the caller's seed for ``vjp``), and walks the active ops backwards. For each
active input of an op it calls the input's VJP from the rule table on symbolic values
(:mod:`..symbolic`), which records the rule body as IR: no derivative math lives here.
Contributions are accumulated with ``add``; where the rule ``broadcasts`` and the input's
shape may differ from the output's, ``unbroadcast`` undoes the broadcast (skipped when the
other inputs are known scalars). Gradients are cast back to their argument's type.
The per-op work is :class:`.scope.Scope`; ``if`` and loops are in :mod:`.regions`.

    y = sin(x=%x)          ->   %y = sin(x=%x)
    return y                    %dy = seed_one(out=%y)
                                %0 = cos(x=%x)
                                %dx = multiply(x=%dy, y=%0)
                                return %dx
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules import rule_named

from ..ir import types as T
from ..ir.builder import Builder, clone_function
from ..ir.core import Function, Value, const_value
from ..structural import STRUCTURAL
from ..symbolic import Sym, record_rule
from .activity import active_values
from .checkpoint import strip_primal_marks
from .regions import backprop_block
from .scope import Scope, owners
from .tape import pair_tapes

GRAD, VALUE_AND_GRAD, VJP = "grad", "value_and_grad", "vjp"


@dataclass
class ReverseSpec:
    wrt: tuple[int, ...]  # parameter indices
    tuple_wrt: bool  # return a tuple of gradients
    transform: str  # grad | value_and_grad | vjp
    # the seed comes from srcgrad's own emitted code (a recursive call's adjoint), shaped
    # right by construction: not checked, so the result need not be computed for its shape
    trusted_seed: bool = False


def reverse(primal: Function, spec: ReverseSpec, pairs: bool = False) -> Function:
    """``primal``'s reverse-mode derivative. ``pairs``: a recursive call becomes a call of
    its callee's forward sweep and adjoint (code to emit, see ``compiler/pairs.py``); the
    IR other transforms compose on keeps the calls' rules. Then ``meta`` also holds the
    ids of the forward sweep's ops (``primal_ops``) and the primal results."""
    fn, _ = clone_function(primal)
    fn.name = f"{spec.transform}_{primal.name}"
    outputs = list(fn.body.results)
    wrt_params = [fn.params[i] for i in spec.wrt]
    active = active_values(fn, wrt_params)
    fn.meta["tapes"] = pair_tapes(fn)  # a reverse pass being differentiated: see .tape
    if pairs:
        fn.meta.update(pairs=True, primal_ops={id(op) for op in fn.body.ops},
                       primal_results=outputs)
    with Builder(fn.body, line=primal.meta.get("return_line")) as b:
        top = Scope(fn, fn.body, b, active, owners(fn))
        seeds = _seeds(fn, b, outputs, spec)
        for out, seed in zip(outputs, seeds):
            if out.id in active:
                top.accumulate(out, seed)
        backprop_block(top)
        strip_primal_marks(fn)
        del fn.meta["tapes"]
        fn.meta.pop("pairs", None)
        with b.at_line(None):
            grads = [_cast_back(b, top.table.get(p.id), p) for p in wrt_params]
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
            return [seed if spec.trusted_seed else _shaped_seed(seed, outputs[0])]
        # the seed is shaped like the (nested) result: each result's seed is read along
        # the path of indices that leads to it
        getitem = rule_named("getitem")
        tree = fn.meta.get("returns", 0)
        checked = record_rule(STRUCTURAL["checked_seed"], [Sym(seed)],
                              {"shape": _seed_shape(tree)})
        seeds = []
        for path in leaf_paths(tree):
            s = checked
            for i in path:
                s = record_rule(getitem, [s], {"index": i})
            seeds.append(_shaped_seed(s.value, outputs[len(seeds)]))
        return seeds
    if len(outputs) != 1 or fn.meta.get("tuple_result"):
        raise SrcGradError(
            f"sg.{spec.transform} needs a function whose result has exactly one element; "
            f"{fn.name.removeprefix(spec.transform + '_')} returns a "
            f"{_container(fn.meta.get('returns'))} of {len(outputs)} value(s) in all.",
            filename=fn.filename, lineno=fn.meta.get("return_line"),
            advice="Use sg.vjp(f) with a tuple seed, or return one value.")
    (out,) = outputs
    if out.type == T.FLOAT:
        return [b.const(1.0)]
    return [record_rule(STRUCTURAL["seed_one"], [Sym(out)], {}).value]


def _shaped_seed(seed: Value, out: Value) -> Value:
    """``seed``, checked when the derivative runs to have ``out``'s shape (a static shape is
    a constant; otherwise ``np.shape(out)``, which the shapes pass usually derives from the
    arguments' shapes)."""
    if out.type is not None and out.type.known_ndim == 0:
        shape: Any = ()
    else:
        is_const, c = const_value(out)
        if is_const:
            shape = np.shape(c)
        else:
            shape = record_rule(rule_named("shape"), [Sym(out)], {})
            shape.value.type = T.STATIC
    return record_rule(STRUCTURAL["seed_of_shape"], [Sym(seed)], {"shape": shape}).value


def _container(tree: Any) -> str:
    nested = any(isinstance(t, (list, tuple)) for t in _items(tree))
    kind = "list" if isinstance(tree, tuple) else "tuple"
    return f"nested {kind}" if nested else kind


def _items(tree: Any) -> list[Any]:
    return tree if isinstance(tree, list) else tree[1] if isinstance(tree, tuple) else []


def _seed_shape(tree: Any) -> Any:
    """What ``support.checked_seed`` checks: None for a value, a tuple per tuple or list."""
    if not isinstance(tree, (list, tuple)):
        return None
    return tuple(_seed_shape(t) for t in _items(tree))


def leaf_paths(tree: Any) -> list[tuple[int, ...]]:
    """The index path to each result of a ``returns`` tree, in result order (see
    ``frontend.result_tree``)."""
    found: dict[int, tuple[int, ...]] = {}

    def walk(t: Any, path: tuple[int, ...]) -> None:
        if not isinstance(t, (list, tuple)):
            found[t] = path
            return
        for k, item in enumerate(_items(t)):
            walk(item, (*path, k))
    walk(tree, ())
    return [found[i] for i in sorted(found)]


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
        if d.type is not None and d.type.kind != "any":
            return record_rule(STRUCTURAL["float"], [Sym(d)], {}).value
        # of unknown type (it met an argument of another array library): like() casts it
        # at run time, and leaves a Dask or CuPy 0-d gradient lazy / on the device
    return record_rule(STRUCTURAL["like"], [Sym(d), Sym(p)], {}).value
