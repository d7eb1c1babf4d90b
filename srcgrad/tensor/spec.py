"""What recording an operation decides once per call form: its ``Spec`` and promotion.

A :class:`Spec` is one call form of one rule (which inputs are Tensors, their ndims, which
static parameters were given): PyTorch's node class and arity for it, where each input's
edge goes, and, per set of inputs needing grad, the ``Plan`` of what its nodes save.
Here too is PyTorch's type promotion as the recording path applies it (:func:`promote`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import node_class
from ..autograd.rule_node import Plan, RuleNode
from ..rules import Rule
from ..rules.registry import ELEMENTWISE, NONDIFF
from . import dtypes

_ndarray = np.ndarray
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)



class Spec:
    """One call form of one rule: PyTorch's node class and arity, and where edges go.

    ``edge_of[i]`` is input ``i``'s slot in ``next_functions`` (``None``: no edge, as for
    the scalar of ``3 - x``). ``plans`` caches a :class:`Plan` per set of inputs needing
    grad.
    """

    __slots__ = ("rule", "node_cls", "arity", "edge_of", "plans", "names", "impl", "is_view",
                 "float_result", "elementwise", "differentiable", "tensors",
                 "value_inputs")

    def __init__(self, rule: Rule, tensors: tuple[bool, ...], ndims: tuple[int, ...],
                 given: dict[str, Any], form: str | None) -> None:
        self.rule = rule
        self.names = rule.inputs
        call = {"tensors": tensors, "ndims": ndims, "form": form, **given}
        if rule.user and rule.torch is None:  # sg.defvjp: named after the function
            stem = rule.name.rsplit(".", 1)[-1]
            name = "".join(p[:1].upper() + p[1:] for p in stem.split("_")) + "Backward0"
            arity = len(tensors)
        else:
            name, arity = rule.torch_node(**call)
        self.node_cls = node_class(name, RuleNode)
        self.arity = arity
        # Inputs without a derivative (``where``'s condition) never get an edge. When the
        # arity is below the number of differentiable inputs, PyTorch dropped the edges of
        # the constants (``3 - x``, ``x ** 2``): only tensors get slots then.
        diff = [n in rule.vjp for n in rule.inputs]
        keep_constants = arity >= sum(diff)
        slots: list[int | None] = []
        k = 0
        for is_tensor, has_vjp in zip(tensors, diff):
            if has_vjp and (keep_constants or is_tensor) and k < arity:
                slots.append(k)
                k += 1
            else:
                slots.append(None)
        self.edge_of: tuple[int | None, ...] = tuple(slots)
        self.plans: dict[tuple[bool, ...], Plan] = {}
        self.tensors = tensors
        self.impl = rule.impl
        # a view only when NumPy's result does share memory, which ``record`` checks
        self.is_view = rule.view
        self.float_result = rule.float_result
        self.elementwise = rule.kind == ELEMENTWISE
        self.differentiable = rule.kind != NONDIFF
        # which inputs carry values into the result (for promotion); None: all of them
        self.value_inputs = tuple(n in rule.vjp for n in rule.inputs) if rule.vjp else None

    def plan(self, requires: tuple[bool, ...]) -> Plan:
        plan = self.plans.get(requires)
        if plan is None:
            wrt = tuple(i for i, r in enumerate(requires)
                        if r and self.names[i] in self.rule.vjp)
            plan = self.plans[requires] = Plan(self.rule, self.node_cls, self.names, wrt,
                                               self.edge_of, requires, self.arity,
                                               self.tensors, with_defaults)
        return plan


_SPECS: dict[Any, Spec] = {}


def spec_for(rule: Rule, tensors: tuple[bool, ...], ndims: tuple[int, ...] = (),
             given: dict[str, Any] | None = None, form: str | None = None) -> Spec:
    """The cached :class:`Spec` of a call form (elementwise names ignore ndims/params)."""
    given = given or {}
    if rule.kind == ELEMENTWISE:
        key: Any = (rule.name, id(rule), tensors, form)
    else:
        key = (rule.name, id(rule), tensors, ndims, form,
               tuple(sorted((k, v is None) for k, v in given.items())))
    spec = _SPECS.get(key)
    if spec is None:
        spec = _SPECS[key] = Spec(rule, tensors, ndims, given, form)
    return spec


def promote(spec: Spec, operands: tuple[Any, ...]) -> tuple[Any, ...]:
    """Cast ndarray operands to PyTorch's result type for this op (scalars stay weak).

    Only the operands that carry values into the result take part (``where``'s condition
    does not); an op without derivatives (a comparison) promotes all of them.
    """
    target = target_dtype(spec, operands)
    value = spec.value_inputs
    return tuple(op.astype(target) if isinstance(op, _ndarray) and op.dtype != target
                 and (value is None or value[k]) else op for k, op in enumerate(operands))


def target_dtype(spec: Spec, operands: tuple[Any, ...]) -> np.dtype:
    value = spec.value_inputs
    chosen = operands if value is None else tuple(
        op for k, op in enumerate(operands) if value[k])
    target = dtypes.result_type(chosen)
    return dtypes.floating(target) if spec.float_result else target


def floats_default(out: np.ndarray, arrays: tuple[Any, ...]) -> np.ndarray:
    """NumPy's float64 where PyTorch gives its default float32: a float result computed
    from integer or bool arrays only (``np.mean`` of an int tensor)."""
    if out.dtype != _F64:
        return out
    kinds = set()
    for a in arrays:
        items = a if isinstance(a, (list, tuple)) else (a,)
        kinds.update(v.dtype.kind for v in items if isinstance(v, _ndarray))
    if kinds and "f" not in kinds:
        return out.astype(_F32)
    return out


# --- the recording paths ------------------------------------------------------------

def with_defaults(rule: Rule, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` completed with the defaults of the rule's call form."""
    defaults = rule.call_form.defaults
    missing = [p for p in rule.params if p not in params]
    if not missing:
        return params
    full = dict(params)
    for p in missing:
        full[p] = defaults.get(p)
    return full
