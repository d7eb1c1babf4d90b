"""Building the backward node of a recorded operation (the tape's write side).

:func:`attach` gives a result tensor its node: edges to the inputs' histories
(:func:`edge`), the values the rule's VJPs ask for with the inputs' versions, and where a
cotangent must be unbroadcast or cast back. A compiled builder (:mod:`.node_builder`)
does the same straight-line per call form; the generic code here is the reference and
also serves the variadic inputs of ``cat``/``stack``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.anomaly import ANOMALY, forward_trace
from ..autograd.graph import Plan, ZeroGradNode, node_class, tensor_type
from ..rules.registry import NONDIFF
from .node_builder import compile_builder
from .spec import Spec, with_defaults

NO_EDGE = (None, 0)
_new = object.__new__
def edge(t: Any) -> tuple[Any, int]:
    """Where a cotangent for tensor ``t`` goes: its node, its leaf sink, or nowhere."""
    if t._base is not None and t._base_fn is not t._base._grad_fn:
        t._refresh_view()
    fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t._rg:
        ref = t._acc
        acc = ref() if ref is not None else None
        if acc is None:
            acc = t._accumulator()
        return acc, 0
    return NO_EDGE


def requires(t: Any) -> bool:
    """Does ``t`` (any value) require grad now? (See :func:`view_requires`.)"""
    return isinstance(t, tensor_type()) and (t._rg or t._base is not None and view_requires(t))


def view_requires(view: Any) -> bool:
    """Does ``view`` require grad now? Its ``_rg`` is stale when its base was written in
    place after the view was made: ``z = zeros(3); v = z[0]; z[1] += x`` gives the base
    (and so every view of it) a history through ``CopySlices``. PyTorch regenerates the
    view's ``grad_fn`` then; so do we, before deciding whether to record an operation."""
    if view._base_fn is not view._base._grad_fn:
        view._refresh_view()
    return view._rg


def zero_grad(rule: Any) -> bool:
    """Is ``rule`` zero-derivative yet recorded, as PyTorch records ``floor``? The table
    says so by giving the NONDIFF rule a PyTorch node name (:mod:`..rules.torch_names`);
    a user's ``sg.defvjp`` on the same function replaces the rule, and its VJP wins."""
    return rule.kind == NONDIFF and rule.torch is not None


def attach_zero(spec: Spec, inputs: tuple[Any, ...], result: Any) -> None:
    """Give ``result`` of a piecewise-constant op a node whose gradient is zero."""
    cls = node_class(spec.node_cls.__name__, ZeroGradNode)
    node = _new(cls)
    node.next_functions = tuple(edge(x) if requires(x) else NO_EDGE for x in inputs)
    node._shapes = [(x._data.shape, x._data.dtype) if requires(x) else None for x in inputs]
    result._grad_fn = node
    result._rg = True


def attach(spec: Spec, inputs: tuple[Any, ...], arrays: tuple[Any, ...], result: Any,
           req: tuple[bool, ...], params: dict[str, Any] | None = None,
           edge_inputs: tuple[Any, ...] | None = None) -> Any:
    """Give ``result`` a node of ``spec`` for ``inputs`` (``req``: which need grad); the
    edges come from ``edge_inputs`` when given (an in-place op saves a copy of its old
    self but links to the tensor's history). Returns the node (None if nothing to do).

    This runs once per recorded operation, so it is written for speed: everything that
    depends only on the call form was decided when the ``Plan`` was built.
    """
    build = spec.builders.get(req, _MISSING)
    if build is _MISSING:
        plan = spec.plan(req)
        build = spec.builders[req] = compile_builder(plan, spec.node_cls, spec.tensors,
                                                     _BUILDER_HELPERS)
    if build is not None:
        return build(inputs, inputs if edge_inputs is None else edge_inputs, arrays, result,
                     params)
    plan = spec.plans.get(req) or spec.plan(req)
    if not plan.wrt:
        return None
    tensor = tensor_type()
    node = _new(spec.node_cls)
    sources = inputs if edge_inputs is None else edge_inputs
    variadic = plan.variadic
    if variadic is None:
        edges = [NO_EDGE] * plan.arity
        for i, slot in plan.edge_slots:
            x = sources[i]
            fn = x._grad_fn
            # inline fast path of edge(): a non-view with history
            edges[slot] = (fn, x._output_nr) if fn is not None and x._base is None \
                else edge(x)
    else:
        edges = [edge(v) if requires(v) else NO_EDGE for v in sources[0]]
        plan = _variadic_plan(plan, len(edges))
    out = result._data
    saved: dict[str, Any] = {}
    versions = []
    for i, name in plan.save_inputs:
        x = inputs[i]
        if type(x) is tensor or isinstance(x, tensor):
            saved[name] = x
            versions.append((name, x._vc[0]))
        elif isinstance(x, (list, tuple)):
            saved[name] = list(x)
            versions.append((name, None))
        else:
            saved[name] = x
    if plan.save_meta:
        _save_metadata(plan, spec, arrays, params, saved)
    if plan.save_out:
        saved["out"] = (out, result._vc, result._vc[0])
    node.next_functions = tuple(edges)
    node._plan = plan
    node._saved = saved
    node._versions = versions
    node._targets = _targets(plan, arrays, out)
    if ANOMALY.enabled:
        node._trace = forward_trace()
        node._special = True
    result._grad_fn = node
    result._rg = True
    return node


def _targets(plan: Plan, arrays: tuple[Any, ...], out: np.ndarray) -> list[Any] | None:
    """Per input whose gradient is computed: where its cotangent must be unbroadcast or
    cast back to its dtype (most operations: nowhere, giving None)."""
    targets = None
    out_dtype, out_size, out_ndim = out.dtype, out.size, out.ndim
    for k, (i, name, _slot) in enumerate(plan.wrt):
        a = arrays[i]
        if name == plan.variadic:
            target: Any = [_target(np.shape(v), np.result_type(v), out.shape, out_dtype, False)
                           for v in a]
        elif a.dtype is not out_dtype or (plan.broadcasts and (a.size != out_size
                                                               or a.ndim != out_ndim)):
            target = _target(a.shape, a.dtype, out.shape, out_dtype, plan.broadcasts)
        else:
            continue
        if targets is None:
            targets = [None] * len(plan.wrt)
        targets[k] = target
    return targets


def _save_metadata(plan: Plan, spec: Spec, arrays: tuple[Any, ...],
                   params: dict[str, Any] | None, saved: dict[str, Any]) -> None:
    """The shapes, dtypes and static parameters the VJPs ask for."""
    for i, name in plan.save_shapes:
        a = arrays[i]
        saved[name] = (tuple(np.shape(v) for v in a) if isinstance(a, list)
                       else np.shape(a))
    for i, name in plan.save_dtypes:
        a = arrays[i]
        saved[name] = (tuple(np.result_type(v) for v in a) if isinstance(a, list)
                       else np.result_type(a))
    if plan.save_params:
        params = with_defaults(spec.rule, params or {})
        for name in plan.save_params:
            saved[name] = params[name]


def _target(shape: tuple[int, ...], dtype: Any, out_shape: tuple[int, ...], out_dtype: Any,
            broadcasts: bool) -> tuple[Any, Any] | None:
    fix_shape = shape if broadcasts and shape != out_shape else None
    fix_dtype = dtype if dtype != out_dtype and dtype.kind == "f" else None
    if fix_shape is None and fix_dtype is None:
        return None
    return fix_shape, fix_dtype


_VARIADIC_PLANS: dict[tuple[int, int], Plan] = {}


def _variadic_plan(plan: Plan, count: int) -> Plan:
    """A plan whose variadic input's slots are spelled out for ``count`` elements."""
    key = (id(plan), count)
    found = _VARIADIC_PLANS.get(key)
    if found is None:
        found = Plan.__new__(Plan)
        for attr in Plan.__slots__:
            setattr(found, attr, getattr(plan, attr))
        found.wrt = tuple((i, n, tuple(range(count)) if n == plan.variadic else s)
                          for i, n, s in plan.wrt)
        found.calls = tuple((k, fn, needs, tuple(range(count)) if variadic else slot,
                             variadic, positional)
                            for k, fn, needs, slot, variadic, positional in plan.calls)
        _VARIADIC_PLANS[key] = found
        _KEEP.append(plan)
    return found


_KEEP: list[Plan] = []  # keeps id() keys of _VARIADIC_PLANS valid


_MISSING = object()
_BUILDER_HELPERS = {"edge": edge, "targets": _targets, "with_defaults": with_defaults,
                    "forward_trace": forward_trace, "ANOMALY": ANOMALY, "NO_EDGE": NO_EDGE}

