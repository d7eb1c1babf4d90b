"""Recording an operation: forward through the rule's ``impl``, then a backward node.

This is the runtime's hot path. Every Tensor method, operator, ``sg.*`` function and
NumPy function applied to a Tensor ends in :func:`record` (or its elementwise fast paths
:func:`unary` / :func:`binary`): unwrap the operands, apply PyTorch's type promotion, run
the rule's ``impl`` on ndarrays, wrap the result, and, when grad mode is on and an input
requires grad, attach a node of the rule (``RuleNode``) holding exactly what the rule's
VJPs ask for. What depends only on the call form (PyTorch's node name and arity, which
inputs get edges, what to save) is computed once per form and cached in :class:`Spec` /
``Plan`` objects, so each operation only copies references.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.anomaly import ANOMALY, forward_trace
from ..autograd.grad_mode import STATE
from ..autograd.graph import Plan, node_class
from ..rules import Rule, rule_named
from ..rules.registry import ELEMENTWISE, NONDIFF
from . import dtypes
from .node_builder import compile_builder

NO_EDGE = (None, 0)
_ndarray = np.ndarray
_asarray = np.asarray
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)

# Rules whose result may share memory with their first input: the result is a view.
VIEW_RULES = {"view", "unsqueeze", "permute", "expand", "select", "slice", "reshape",
              "squeeze", "transpose", "expand_dims", "broadcast_to", "getitem", "diagonal",
              "swapaxes", "moveaxis", "ravel", "detach_view"}
# Elementwise rules that compute in floating point even on integer inputs (like PyTorch).
FLOAT_RESULT = {"divide", "true_divide", "power_float", "exp", "expm1", "log", "log1p",
                "log2", "log10", "sqrt", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
                "sinh", "cosh", "tanh", "arctan2", "hypot", "logaddexp", "sigmoid",
                "reciprocal", "softmax", "log_softmax", "mean", "std", "var"}


class Spec:
    """One call form of one rule: PyTorch's node class and arity, and where edges go.

    ``edge_of[i]`` is input ``i``'s slot in ``next_functions`` (``None``: no edge, as for
    the scalar of ``3 - x``). ``plans`` caches a :class:`Plan` per set of inputs needing
    grad.
    """

    __slots__ = ("rule", "node_cls", "arity", "edge_of", "plans", "names", "impl", "is_view",
                 "float_result", "elementwise", "differentiable", "tensors", "builders",
                 "value_inputs")

    def __init__(self, rule: Rule, tensors: tuple[bool, ...], ndims: tuple[int, ...],
                 given: dict[str, Any], form: str | None) -> None:
        self.rule = rule
        self.names = rule.inputs
        call = {"tensors": tensors, "ndims": ndims, "form": form, **given}
        if rule.user and rule.node_name is None:  # sg.defvjp: named after the function
            stem = rule.name.rsplit(".", 1)[-1]
            name = "".join(p[:1].upper() + p[1:] for p in stem.split("_")) + "Backward0"
            arity = len(tensors)
        else:
            name, arity = rule.torch_node(**call)
        self.node_cls = node_class(name)
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
        self.builders: dict[tuple[bool, ...], Any] = {}  # req -> compiled node builder
        self.impl = rule.impl
        self.is_view = rule.name in VIEW_RULES
        self.float_result = rule.name in FLOAT_RESULT
        self.elementwise = rule.kind == ELEMENTWISE
        self.differentiable = rule.kind != NONDIFF
        # which inputs carry values into the result (for promotion); None: all of them
        self.value_inputs = tuple(n in rule.vjp for n in rule.inputs) if rule.vjp else None

    def plan(self, requires: tuple[bool, ...]) -> Plan:
        plan = self.plans.get(requires)
        if plan is None:
            wrt = tuple(i for i, r in enumerate(requires)
                        if r and self.names[i] in self.rule.vjp)
            plan = self.plans[requires] = Plan(self.rule, self.names, wrt, self.edge_of,
                                               requires, self.arity, self.tensors)
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


# --- graph edges --------------------------------------------------------------------

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
    return isinstance(t, _tm.Tensor) and t._rg


# --- promotion ----------------------------------------------------------------------

def promote(spec: Spec, operands: tuple[Any, ...]) -> tuple[Any, ...]:
    """Cast ndarray operands to PyTorch's result type for this op (scalars stay weak).

    Only the operands that carry values into the result take part (``where``'s condition
    does not); an op without derivatives (a comparison) promotes all of them.
    """
    target = _target_dtype(spec, operands)
    value = spec.value_inputs
    return tuple(op.astype(target) if isinstance(op, _ndarray) and op.dtype != target
                 and (value is None or value[k]) else op for k, op in enumerate(operands))


def _target_dtype(spec: Spec, operands: tuple[Any, ...]) -> np.dtype:
    value = spec.value_inputs
    chosen = operands if value is None else tuple(
        op for k, op in enumerate(operands) if value[k])
    target = dtypes.result_type(chosen)
    return dtypes.floating(target) if spec.float_result else target


def _floats_default(out: np.ndarray, arrays: tuple[Any, ...]) -> np.ndarray:
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
    tensor = _tm.Tensor
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


_new = object.__new__


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


def unary(spec: Spec, a: Any) -> Any:
    """An elementwise one-input op on Tensor ``a`` (``sin``, ``exp``, ``neg``...)."""
    x = a._data
    if spec.float_result and x.dtype.kind != "f":
        x = x.astype(_F32)
    out = spec.impl(x)
    if type(out) is not _ndarray:
        out = _asarray(out)
    result = _new(_tm.Tensor)
    result._data = out
    result._vc = [0]
    if a._rg and STATE.enabled:
        build = spec.builders.get(_ONE)
        if build is not None:
            build((a,), (a,), (x,), result, None)
        else:
            attach(spec, (a,), (x,), result, _ONE)
    return result


_ONE = (True,)
_SCALARS = (float, int)


def binary(specs: dict[tuple[bool, bool], Spec], a: Any, b: Any) -> Any:
    """An elementwise two-input op; ``a`` or ``b`` may be a Python number or ndarray.

    The hot path of the runtime: kept flat on purpose (no helper calls when both
    operands are tensors of one float dtype, or a float tensor meets a Python number).
    """
    tensor = _tm.Tensor
    ta = type(a) is tensor or isinstance(a, tensor)
    tb = type(b) is tensor or isinstance(b, tensor)
    x = a._data if ta else a
    y = b._data if tb else b
    spec = specs.get((ta, tb))
    if spec is None:
        spec = specs[(ta, tb)] = spec_for(specs["rule"], (ta, tb))  # type: ignore[index]
    if ta and tb:
        dt = x.dtype
        fast = dt is y.dtype and (dt.kind == "f" or not spec.float_result)
    elif ta:
        fast = type(y) in _SCALARS and x.dtype.kind == "f"
    else:
        fast = type(x) in _SCALARS and y.dtype.kind == "f"
    if not fast:
        if not (ta or isinstance(x, (int, float, bool, np.ndarray, np.generic))) or \
                not (tb or isinstance(y, (int, float, bool, np.ndarray, np.generic))):
            raise TypeError(f"unsupported operand types for {spec.rule.name}: "
                            f"{type(a).__name__} and {type(b).__name__}")
        x, y = promote(spec, (x, y))  # (the node reads the inputs' own dtypes)
    try:
        out = spec.impl(x, y)
    except ValueError as e:
        if "broadcast" not in str(e):
            raise
        raise RuntimeError(_broadcast_message(x, y)) from None
    if type(out) is not _ndarray:
        out = _asarray(out)
    result = _new(tensor)
    result._data = out
    result._vc = [0]
    ra = ta and a._rg
    rb = tb and b._rg
    if (ra or rb) and STATE.enabled and spec.differentiable:
        req = (ra, rb)
        arrays = (a._data if ta else x, b._data if tb else y)
        build = spec.builders.get(req)
        if build is not None:
            build((a, b), (a, b), arrays, result, None)
        else:
            attach(spec, (a, b), arrays, result, req)
    return result


def _broadcast_message(x: Any, y: Any) -> str:
    sx, sy = np.shape(x), np.shape(y)
    for k in range(1, max(len(sx), len(sy)) + 1):
        a = sx[-k] if k <= len(sx) else 1
        b = sy[-k] if k <= len(sy) else 1
        if a != b and a != 1 and b != 1:
            return (f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {max(len(sx), len(sy)) - k}")
    return f"shapes {sx} and {sy} cannot be broadcast together"


def elementwise_specs(name: str) -> dict[Any, Any]:
    """The per-form cache :func:`binary` uses for rule ``name``."""
    return {"rule": rule_named(name)}


def record(rule: Rule, inputs: tuple[Any, ...], params: dict[str, Any] | None = None,
           form: str | None = None, extra: dict[str, Any] | None = None) -> Any:
    """The general path: any rule, inputs (Tensors, numbers, arrays, a list for a variadic
    input) and static ``params``; ``extra`` are impl keyword arguments not in the rule."""
    tensor = _tm.Tensor
    params = with_defaults(rule, params or {})
    variadic = rule.variadic
    tensors = []
    arrays = []
    req = []
    for name, x in zip(rule.inputs, inputs):
        if variadic == name:
            items = list(x)
            arrays.append([v._data if isinstance(v, tensor) else v for v in items])
            tensors.append(True)
            req.append(any(requires(v) for v in items))
        elif isinstance(x, tensor):
            arrays.append(x._data)
            tensors.append(True)
            req.append(x._rg)
        else:
            arrays.append(x)
            tensors.append(False)
            req.append(False)
    ndims = tuple(np.ndim(a) if not isinstance(a, list) else 1 for a in arrays)
    spec = spec_for(rule, tuple(tensors), ndims, params, form)
    originals = arrays_t = tuple(arrays)
    promoted = spec.elementwise and len(arrays_t) > 1 or spec.float_result
    if promoted:
        arrays_t = promote(spec, arrays_t)
    env = dict(zip(rule.inputs, arrays_t))
    env.update(params)
    try:
        out = rule.apply(env) if not extra else spec.impl(*arrays_t, **params, **extra)
    except ValueError as e:  # NumPy's complaint, raised as the runtime's error
        raise RuntimeError(f"{rule.name}(): {e}") from None
    if type(out) is not _ndarray:
        out = _asarray(out)
    if out.dtype.kind == "f" and params.get("dtype") is None:
        if promoted:  # Python numbers alone (``where(c, 1.0, 0.0)``) get float32 too
            target = _target_dtype(spec, originals)
            if target.kind == "f" and out.dtype != target:
                out = out.astype(target)
        else:
            out = _floats_default(out, arrays_t)
    result = tensor._wrap(out)
    first = inputs[0] if inputs else None
    if spec.is_view and isinstance(first, tensor) and np.may_share_memory(out, first._data):
        name = rule.inputs[0]
        make_view(result, first, lambda arr: rule.apply({**env, name: arr}))
    if any(req) and STATE.enabled and rule.kind != NONDIFF:
        missing = [n for n, r in zip(rule.inputs, req) if r and n not in rule.vjp]
        if missing:
            raise RuntimeError(f"{rule.name}() has no reverse-mode rule for its input "
                               f"{missing[0]!r}, which requires grad; register one with "
                               "sg.defvjp, or pass a tensor.detach()")
        attach(spec, tuple(inputs), originals, result, tuple(req), params)
    return result


def make_view(result: Any, source: Any, step: Callable[[Any], Any]) -> None:
    """Mark ``result`` as a view of ``source``'s storage: shared data and version counter,
    and how to replay it from the root base (used to locate in-place writes)."""
    base = source._base if source._base is not None else source
    parent = source._view_fn
    result._base = base
    result._vc = source._vc
    result._view_fn = step if parent is None else (lambda arr: step(parent(arr)))
    result._base_fn = base._grad_fn


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


_MISSING = object()
_BUILDER_HELPERS = {"edge": edge, "targets": _targets, "with_defaults": with_defaults,
                    "forward_trace": forward_trace, "ANOMALY": ANOMALY, "NO_EDGE": NO_EDGE}


# The Tensor class is built on this module (its methods call the functions above), so it
# is bound last; the functions here only read ``_tm.Tensor`` when called.
from . import tensor as _tm  # noqa: E402
