"""In-place operations: write new values into a tensor's storage, and rewire its history.

PyTorch's rules, followed here:

- every write bumps the storage's version counter (shared by views and ``detach()``), so
  a backward that saved the old values raises "... modified by an inplace operation";
- with grad mode on, writing into a leaf that requires grad (or a view of one) raises;
- a tensor written in place gets the write's node as its new ``grad_fn`` (its old history
  becomes that node's first edge);
- a write into a *view* (``t[0:2].mul_(2)``, ``t[i] = v``) rewires the view's base instead:
  the base's new ``grad_fn`` is a ``CopySlices`` wrapping the write's node, and every view
  of the base reads its history afresh (``AsStridedBackward0``) from then on; a view made
  before the write learns it requires grad when an op reads it (``nodes.view_requires``),
  which is what keeps ``x``'s gradient in ``z[0] += x`` for a ``z`` that did not need one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.copy_slices import CopySlices
from ..autograd.fp_errors import IGNORE, quiet, restore
from ..autograd.grad_mode import ALL_THREADS, STATE
from ..rules import ELEMENTWISE, Rule, rule_named
from . import dtypes
from . import ops as _ops

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = ("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation.")


def region_of(view: Any) -> np.ndarray:
    """The flat positions in ``view._base`` that ``view`` covers, in the view's shape."""
    base = view._base
    positions = np.arange(base._data.size).reshape(base._data.shape)
    return np.asarray(view._view_fn(positions))


def apply_inplace(t: Any, rule: Rule, inputs: tuple[Any, ...],
                  params: dict[str, Any] | None = None, form: str | None = None) -> Any:
    """``t[...] = rule(*inputs)`` (``inputs[0]`` is ``t``), recorded as PyTorch does."""
    tensor = _ops._tm.Tensor
    grad_on = ALL_THREADS.grad or STATE.enabled
    base = t._base
    if grad_on:
        if base is None and t._grad_fn is None and t._rg:
            raise RuntimeError(LEAF_MESSAGE)
        if base is not None and base._grad_fn is None and base._rg:
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE)
    params = _ops.with_defaults(rule, params or {})
    arrays = tuple(x._data if isinstance(x, tensor) else x for x in inputs)
    target = t._data
    if rule.kind == ELEMENTWISE:  # PyTorch's promotion decides whether the write may cast
        computed = dtypes.result_type(arrays)
        if not np.can_cast(computed, target.dtype, casting="same_kind"):
            title = dtypes.TITLE_NAMES
            raise RuntimeError(f"result type {title[dtypes.from_numpy(computed).name]} can't "
                               f"be cast to the desired output type "
                               f"{title[dtypes.from_numpy(target.dtype).name]}")
        arrays = (target, *(a.astype(target.dtype) if isinstance(a, np.ndarray) else a
                            for a in arrays[1:]))
    env = dict(zip(rule.inputs, arrays))
    env.update(params)
    token = quiet(IGNORE)  # nan/inf are values, not warnings (PyTorch): fp_errors
    try:
        new = np.asarray(rule.apply(env))
    finally:
        restore(token)
    req = tuple(_ops.requires(x) for x in inputs)  # fresh for views of a written base
    record = grad_on and any(req) and rule.differentiable
    saved_self = t
    if record:
        spec = _ops.spec_for(rule, tuple(isinstance(x, tensor) for x in inputs),
                             tuple(np.ndim(a) for a in arrays), params, form)
        plan = spec.plan(req)
        if any(inputs[i] is t for i, _ in plan.save_inputs):  # the VJP reads the old
            saved_self = tensor._wrap(target.copy())  # self: keep a copy of it
    try:
        np.copyto(target, new, casting="same_kind")
    except ValueError as e:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.") from e
    t._vc[0] += 1
    if not record:
        return t
    holder = tensor._wrap(target)
    holder._vc = t._vc
    saved_inputs = tuple(saved_self if x is t else x for x in inputs)
    node = _ops.attach(spec, saved_inputs, arrays, holder, req, params, edge_inputs=inputs)
    if node is None:
        return t
    if base is None:
        t._grad_fn, t._output_nr, t._rg = node, 0, True
        return t
    base_edge = _ops.edge(base)
    base._grad_fn = CopySlices(base_edge, node, region_of(t), base._data.shape)
    base._output_nr, base._rg = 0, True
    return t


def refresh_view(view: Any) -> None:
    """The base of ``view`` was written in place after the view was made: from now on the
    view reads its values and history from the base (``AsStridedBackward0``)."""
    base = view._base
    view._base_fn = base._grad_fn
    if base._grad_fn is None and not base._rg:
        view._grad_fn, view._rg = None, False
        return
    view._grad_fn = None
    take = rule_named("take_flat")
    spec = _ops.spec_for(take, (True,), (base._data.ndim,), {"region": None})
    _ops.attach(spec, (base,), (base._data,), view, (True,), {"region": region_of(view)})
    view._output_nr = 0


class InplaceMethods:
    """The in-place methods (``add_``...) and augmented assignments of the Tensor."""

    def add_(self, other: Any, *, alpha: Any = 1) -> Any:
        value = other if alpha == 1 else other * alpha
        return apply_inplace(self, rule_named("add"), (self, value))

    def sub_(self, other: Any, *, alpha: Any = 1) -> Any:
        value = other if alpha == 1 else other * alpha
        return apply_inplace(self, rule_named("subtract"), (self, value))

    def mul_(self, other: Any) -> Any:
        return apply_inplace(self, rule_named("multiply"), (self, other))

    def div_(self, other: Any) -> Any:
        return apply_inplace(self, rule_named("divide"), (self, other))

    def pow_(self, exponent: Any) -> Any:
        return apply_inplace(self, rule_named("power"), (self, exponent))

    def neg_(self) -> Any:
        return apply_inplace(self, rule_named("negative"), (self,))

    def clamp_(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return apply_inplace(self, rule_named("clip"), (self, min, max))

    clip_ = clamp_

    def relu_(self) -> Any:
        return apply_inplace(self, rule_named("relu"), (self,))

    def zero_(self) -> Any:
        return apply_inplace(self, rule_named("fill"), (self, 0), form="zero_")

    def fill_(self, value: Any) -> Any:
        return apply_inplace(self, rule_named("fill"), (self, value))

    def copy_(self, src: Any) -> Any:
        return apply_inplace(self, rule_named("copy_into"), (self, src))

    def __iadd__(self, other: Any) -> Any:
        return self.add_(other)

    def __isub__(self, other: Any) -> Any:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Any:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Any:
        return self.div_(other)
