"""Linking a recorded operation into the graph (the tape's write side, tensor half).

:func:`attach` gives a result tensor its node through the call form's plan
(``autograd.rule_node.build_node``, or its written-out twin); :func:`edge` says where a
cotangent for a tensor goes, refreshing views whose base was written in place
(:func:`view_requires`), which only this layer knows how to do.
"""

from __future__ import annotations

from typing import Any

from ..autograd.graph import ZeroGradNode, node_class, stamp, tensor_type
from ..autograd.rule_node import NO_EDGE
from ..rules.registry import NONDIFF
from .spec import Spec

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
    node._order = stamp()
    node._shapes = [(x._data.shape, x._data.dtype) if requires(x) else None for x in inputs]
    result._grad_fn = node
    result._rg = True


def attach(spec: Spec, inputs: tuple[Any, ...], arrays: tuple[Any, ...], result: Any,
           req: tuple[bool, ...], params: dict[str, Any] | None = None,
           edge_inputs: tuple[Any, ...] | None = None) -> Any:
    """Give ``result`` a node of ``spec`` for ``inputs`` (``req``: which need grad); the
    edges come from ``edge_inputs`` when given (an in-place op saves a copy of its old
    self but links to the tensor's history). Returns the node (None if nothing to do).

    The one way an operation is recorded: its plan's ``build`` (``autograd.rule_node``).
    """
    plan = spec.plans.get(req) or spec.plan(req)
    return plan.build(inputs, inputs if edge_inputs is None else edge_inputs, arrays, result,
                 params)
