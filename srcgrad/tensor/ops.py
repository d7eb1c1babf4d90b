"""Recording an operation: forward through the rule's ``impl``, then a backward node.

This is the runtime's hot path. Every Tensor method, operator, ``sg.*`` function and
NumPy function applied to a Tensor ends in :func:`record` (or its elementwise fast paths
:func:`unary` / :func:`binary`): unwrap the operands, apply PyTorch's type promotion, run
the rule's ``impl`` on ndarrays, wrap the result, and, when grad mode is on and an input
requires grad, attach a node of the rule (``autograd.rule_node.RuleNode``) holding exactly
what the rule's VJPs ask for, through the plan's ``build`` (the one record path). What
depends only on the call form (PyTorch's node name and arity, which inputs get edges, what
to save) is computed once per form and cached in :class:`Spec` / ``Plan`` objects, so each
operation only copies references.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.fp_errors import IGNORE as _IGNORE
from ..autograd.fp_errors import QUIET as _QUIET
from ..autograd.fp_errors import quiet as _quiet
from ..autograd.fp_errors import quietly as _quietly
from ..autograd.fp_errors import restore as _restore
from ..autograd.grad_mode import STATE
from ..rules import Rule, rule_named
from ..rules.registry import ELEMENTWISE, NONDIFF
from .nodes import NO_EDGE, attach, attach_zero, edge, requires, view_requires, zero_grad
from .spec import (
    Spec,
    floats_default,
    promote,
    spec_for,
    target_dtype,
    with_defaults,
)

_ndarray = np.ndarray
_asarray = np.asarray
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_new = object.__new__
_NUMERIC = "biufc"  # dtype kinds whose ufunc loops are NumPy's own (no Python objects)

__all__ = ["NO_EDGE", "Spec", "attach", "binary", "binary_op", "computed", "edge",
           "elementwise_specs", "floats_default", "make_view", "promote", "record",
           "requires", "spec_for", "unary", "unary_op", "with_defaults"]


def unary_op(spec: Spec) -> Callable[[Any], Any]:
    """A differentiable elementwise one-input op as a function of its Tensor (``sin``,
    ``exp``...): Tensor methods are these functions themselves (no wrapper call per op)."""

    impl, float_result = spec.impl, spec.float_result  # fixed per spec
    # a dispatching primitive (``relu``, ``sigmoid``...) run on an ndarray would only check
    # its argument's type and call its own function: called directly (the wrapper costs
    # ~0.2 us, as much as the NumPy work on small arrays); other arrays go through it
    direct = getattr(impl, "__srcgrad_impl__", impl)
    made: list[Any] = [None]  # its plan (one input, needing grad), once made

    def op(self: Any) -> Any:  # (named as the Tensor method it is)
        a = self
        x = a._data
        dt = x.dtype
        if dt is _F32 or dt is _F64:  # (identity first: the kind of a dtype is slower)
            plain = True
        else:
            if float_result and dt.kind != "f":
                x = x.astype(_F32)
            plain = x.dtype.kind in _NUMERIC
        # nan/inf are values, not warnings (PyTorch): in this thread's quiet context when
        # only NumPy's loops run (fp_errors), else by setting the error state around it
        if plain and type(x) is _ndarray:
            try:
                out = _QUIET.run(direct, x)
            except RuntimeError:  # the context is in use: an op run from inside one
                out = _quietly(direct, x)
        else:
            out = _quietly(impl, x)
        if type(out) is not _ndarray:
            out = _asarray(out)
        result = _new(_Tensor)
        result._data = out
        result._vc = [0]
        result._grad_fn = result._base = result._acc = None  # (every slot: tensor.py)
        result._rg = False
        result._output_nr = 0
        # a view may require grad without knowing it yet (nodes.view_requires)
        if (a._rg or a._base is not None and view_requires(a)) and STATE.enabled:
            plan = made[0]
            if plan is None:
                plan = made[0] = spec.plan(_ONE)
            if out.dtype is a._data.dtype:
                plan.quick(result, a)  # (nothing to cast back: see specialize)
            else:
                plan.build((a,), (a,), (a._data,), result, None)
        return result

    return op


_UNARY_OPS: dict[Spec, Callable[[Any], Any]] = {}


def unary(spec: Spec, a: Any) -> Any:
    """The elementwise op ``spec`` on Tensor ``a`` (see :func:`unary_op`)."""
    op = _UNARY_OPS.get(spec)
    if op is None:
        op = _UNARY_OPS[spec] = unary_op(spec)
    return op(a)


_ONE = (True,)
_SCALARS = (float, int)


def binary_op(specs: dict[Any, Any]) -> Callable[[Any, Any], Any]:
    """An elementwise two-input op as a function of its operands; ``a`` or ``b`` may be a
    Python number or ndarray. Tensor operators are these functions themselves (no wrapper
    call per op).

    The hot path of the runtime: kept flat on purpose (no helper calls when both
    operands are tensors of one float dtype, or a float tensor meets a Python number).
    """

    # the Spec per call form, at 2 * (a is a Tensor) + (b is a Tensor): an index, where a
    # dict would hash a fresh tuple per operation
    forms: list[Spec | None] = [None] * 4
    elementwise = specs["rule"].kind == ELEMENTWISE  # (ufuncs: all of them but a user's)
    # the plan per call form and inputs needing grad, at 4 * form + 2 * ra + rb (no tuple
    # to build and hash per operation)
    plans: list[Any] = [None] * 16

    def op(self: Any, other: Any) -> Any:  # (named as the Tensor method it is)
        a, b = self, other
        tensor = _Tensor
        ta = type(a) is tensor or isinstance(a, tensor)
        tb = type(b) is tensor or isinstance(b, tensor)
        x = a._data if ta else a
        y = b._data if tb else b
        form = 2 * ta + tb
        spec = forms[form]
        if spec is None:
            spec = forms[form] = spec_for(specs["rule"], (ta, tb))
        if ta and tb:
            dt = x.dtype  # (identity first: the kind of a dtype is a slower attribute)
            # (other dtypes than numbers, whose ufunc loops call Python, take the general
            # path: it does not run in the quiet context, see below)
            fast = dt is y.dtype and (dt is _F32 or dt is _F64 or dt.kind == "f" or
                                      not spec.float_result and dt.kind in _NUMERIC)
        elif ta:
            dt = x.dtype
            fast = type(y) in _SCALARS and (dt is _F32 or dt is _F64 or dt.kind == "f")
            if fast and type(y) is float:
                cache = _S32 if dt is _F32 else _S64 if dt is _F64 else _scalars(dt)
                y = b = cache.get(y) or _scalar_array(y, dt)
        else:
            dt = y.dtype
            fast = type(x) in _SCALARS and (dt is _F32 or dt is _F64 or dt.kind == "f")
            if fast and type(x) is float:
                cache = _S32 if dt is _F32 else _S64 if dt is _F64 else _scalars(dt)
                x = a = cache.get(x) or _scalar_array(x, dt)
        if not fast:
            if not (ta or isinstance(x, (int, float, bool, np.ndarray, np.generic))) or \
                    not (tb or isinstance(y, (int, float, bool, np.ndarray, np.generic))):
                raise TypeError(f"unsupported operand types for {spec.rule.name}: "
                                f"{type(a).__name__} and {type(b).__name__}")
            x, y = promote(spec, (x, y))  # (the node reads the inputs' own dtypes)
        # nan/inf are values, not warnings: the fast forms (numbers only: NumPy's loops
        # alone run) in this thread's quiet context, the others by setting the error state
        impl = spec.impl
        try:
            if fast:
                try:
                    out = _QUIET.run(impl, x, y)
                except RuntimeError:  # the context is in use: an op run from inside one
                    out = _quietly(impl, x, y)
            else:
                out = _quietly(impl, x, y)
        except ValueError as e:
            if "broadcast" not in str(e):
                raise
            raise RuntimeError(_broadcast_message(x, y)) from None
        if type(out) is not _ndarray:
            out = _asarray(out)
        result = _new(tensor)
        result._data = out
        result._vc = [0]
        result._grad_fn = result._base = result._acc = None  # (every slot: tensor.py)
        result._rg = False
        result._output_nr = 0
        ra = ta and (a._rg or a._base is not None and view_requires(a))
        rb = tb and (b._rg or b._base is not None and view_requires(b))
        if (ra or rb) and STATE.enabled and spec.differentiable:
            k = 4 * form + 2 * ra + rb
            plan = plans[k]
            if plan is None:
                plan = plans[k] = spec.plan((bool(ra), bool(rb)))
            # quick: nothing to unbroadcast or cast back (see specialize). Elementwise: a
            # number or 0-d array takes the tensor's shape; two tensors, their common one
            if fast and out.dtype is dt and elementwise and (not (ta and tb) or
                                                             x.shape == y.shape):
                plan.quick(result, a, b)  # (a number operand is its own array here)
            else:
                plan.build((a, b), (a, b), (a._data if ta else x, b._data if tb else y), result,
                           None)
        return result

    return op


def binary(specs: dict[Any, Any], a: Any, b: Any) -> Any:
    """The elementwise op of ``specs`` (``{"rule": rule}``, :func:`elementwise_specs`) on
    ``a`` and ``b``; the op is made on first use."""
    op = specs.get("op")
    if op is None:
        op = specs["op"] = binary_op(specs)
    return op(a, b)


# A Python float meeting a float tensor is cast to the tensor's dtype anyway (it is a weak
# scalar, as in PyTorch), but NumPy does that cast on every call at about the cost of the
# operation itself on small arrays; a read-only 0-d array of the tensor's dtype gives the
# same result at half the time, forward and in the backward that saves it.
# (one dict per dtype, the two usual ones at hand: hashing a dtype costs as much as the
# lookup itself)
_SCALAR_ARRAYS: dict[np.dtype, dict[float, np.ndarray]] = {_F32: {}, _F64: {}}
_S32, _S64 = _SCALAR_ARRAYS[_F32], _SCALAR_ARRAYS[_F64]


def _scalars(dtype: np.dtype) -> dict[float, np.ndarray]:
    """The cache of shared 0-d arrays of ``dtype``."""
    return _SCALAR_ARRAYS.setdefault(dtype, {})


def _scalar_array(value: float, dtype: np.dtype) -> Any:
    """``value`` as a shared 0-d array of ``dtype`` (``value`` itself for the zeros,
    whose sign the cache key cannot tell apart, and for nan, which never matches)."""
    if value == 0 or value != value:
        return value
    cache = _scalars(dtype)
    if len(cache) > 4096:  # a schedule of ever-new constants: start over
        cache.clear()
    array = _quietly(np.array, value, dtype)  # (1e300 is inf in float32: a value, as in PyTorch)
    array.flags.writeable = False
    cache[value] = array
    return array


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
    """The per-form cache :func:`binary` uses for rule ``name``, and its ``"op"``."""
    specs: dict[Any, Any] = {"rule": rule_named(name)}
    specs["op"] = binary_op(specs)  # (the Tensor operators are this function itself)
    return specs


def record(rule: Rule, inputs: tuple[Any, ...], params: dict[str, Any] | None = None,
           form: str | None = None) -> Any:
    """The general path: any rule, its inputs (Tensors, numbers, arrays, a list for a
    variadic input) and static ``params``; ``form`` names the surface spelling when
    several share the rule (``"t"``, ``"transpose"``: see :mod:`..rules.torch_names`)."""
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
            req.append(x._rg or x._base is not None and view_requires(x))
        else:
            arrays.append(x)
            tensors.append(False)
            req.append(False)
    ndims = tuple(np.ndim(a) if not isinstance(a, list) else 1 for a in arrays)
    if rule.resolve is not None:  # e.g. norm: is it a vector or a matrix norm
        params = rule.resolve(params, dict(zip(rule.inputs, ndims)))
    spec = spec_for(rule, tuple(tensors), ndims, params, form)
    originals = arrays_t = tuple(arrays)
    promoted = spec.elementwise and len(arrays_t) > 1 or spec.float_result
    if promoted:
        arrays_t = promote(spec, arrays_t)
    env = dict(zip(rule.inputs, arrays_t))
    env.update(params)
    out = computed(rule, rule.apply, env)
    if out.dtype.kind == "f" and params.get("dtype") is None:
        if promoted:  # Python numbers alone (``where(c, 1.0, 0.0)``) get float32 too
            target = target_dtype(spec, originals)
            if target.kind == "f" and out.dtype != target:
                out = out.astype(target)
        else:
            out = floats_default(out, arrays_t)
    result = tensor._wrap(out)
    first = inputs[0] if inputs else None
    if spec.is_view and isinstance(first, tensor) and np.may_share_memory(out, first._data):
        name = rule.inputs[0]
        make_view(result, first, lambda arr: rule.apply({**env, name: arr}))
    if any(req) and STATE.enabled and zero_grad(rule) and out.dtype.kind == "f":
        attach_zero(spec, tuple(inputs), result)
    elif any(req) and STATE.enabled and rule.kind != NONDIFF:
        missing = [n for n, r in zip(rule.inputs, req) if r and n not in rule.vjp]
        if missing:
            raise RuntimeError(f"{rule.name}() has no reverse-mode rule for its input "
                               f"{missing[0]!r}, which requires grad; register one with "
                               "sg.defvjp, or pass a tensor.detach()")
        attach(spec, tuple(inputs), originals, result, tuple(req), params)
    return result


def computed(rule: Rule, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` as an ndarray, computed as every recorded op is: floating-point
    errors are values, not warnings (:mod:`..autograd.fp_errors`), and NumPy's complaint
    (a ``ValueError``) is raised as the runtime's ``RuntimeError`` naming ``rule``. (The
    elementwise fast paths write this out: they are the runtime's hot path.)"""
    token = _quiet(_IGNORE)
    try:
        out = fn(*args, **kwargs)
    except ValueError as e:
        raise RuntimeError(f"{rule.name}(): {e}") from None
    finally:
        _restore(token)
    return out if type(out) is _ndarray else _asarray(out)


def make_view(result: Any, source: Any, step: Callable[[Any], Any]) -> None:
    """Mark ``result`` as a view of ``source``'s storage: shared data and version counter,
    and how to replay it from the root base (used to locate in-place writes)."""
    base = source._base if source._base is not None else source
    parent = source._view_fn
    result._base = base
    result._vc = source._vc
    result._view_fn = step if parent is None else (lambda arr: step(parent(arr)))
    result._base_fn = base._grad_fn


# The Tensor class is built on this module (its methods call the functions above), so it
# is bound last; the functions here only read ``_tm.Tensor`` when called, and the hot
# paths read ``_Tensor``, which tensor.py sets once the class exists.
_Tensor: Any = None
from . import tensor as _tm  # noqa: E402
