"""Recording an operation: forward through the rule's ``impl``, then a backward node.

This is the runtime's hot path. Every Tensor method, operator, ``sg.*`` function and
NumPy function applied to a Tensor ends in :func:`record` (or its elementwise fast paths
:func:`unary` / :func:`binary`, written per rule by :mod:`.elementwise`): unwrap the
operands, apply PyTorch's type promotion, run the rule's ``impl`` on ndarrays, wrap the
result, and, when grad mode is on and an input requires grad, attach a node of the rule
(``autograd.rule_node.RuleNode``) holding exactly what the rule's VJPs ask for, through
the plan's ``build`` (the one record path). What depends only on the call form (PyTorch's
node name and arity, which inputs get edges, what to save) is computed once per form and
cached in :class:`Spec` / ``Plan`` objects, so each operation only copies references.
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
from ..autograd.grad_mode import ALL_THREADS, STATE
from ..rules import Rule, rule_named
from ..rules.registry import NONDIFF
from .elementwise import binary_op, bind_tensor, named, unary_op
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

__all__ = ["NO_EDGE", "Spec", "attach", "binary", "binary_op", "bind_tensor", "computed",
           "computed_numpy",
           "edge", "elementwise_specs", "floats_default", "make_view", "named", "promote",
           "record", "requires", "spec_for", "unary", "unary_op", "with_defaults"]

_UNARY_OPS: dict[Spec, Callable[[Any], Any]] = {}


def unary(spec: Spec, a: Any) -> Any:
    """The elementwise op ``spec`` on Tensor ``a`` (see :func:`unary_op`)."""
    op = _UNARY_OPS.get(spec)
    if op is None:
        op = _UNARY_OPS[spec] = unary_op(spec)
    return op(a)


def binary(specs: dict[Any, Any], a: Any, b: Any) -> Any:
    """The elementwise op of ``specs`` (``{"rule": rule}``, :func:`elementwise_specs`) on
    ``a`` and ``b``; the op is made on first use."""
    op = specs.get("op")
    if op is None:
        op = specs["op"] = binary_op(specs)
    return op(a, b)


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
    grad_on = ALL_THREADS.grad or STATE.enabled
    if any(req) and grad_on and zero_grad(rule) and out.dtype.kind == "f":
        attach_zero(spec, tuple(inputs), result)
    elif any(req) and grad_on and rule.kind != NONDIFF:
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


def computed_numpy(rule: Rule, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """:func:`computed` for a ``fn`` that runs NumPy's own loops only (a ufunc's method on
    float ndarrays): in the quiet context (:mod:`..autograd.fp_errors`), which
    costs less than setting the error state around it."""
    try:
        try:
            out = _QUIET.run(fn, *args, **kwargs)
        except RuntimeError:  # the context is in use: an op run from inside one
            out = _quietly(fn, *args, **kwargs)
    except ValueError as e:
        raise RuntimeError(f"{rule.name}(): {e}") from None
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
