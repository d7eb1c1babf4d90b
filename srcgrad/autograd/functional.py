"""``sg.autograd.functional.jacobian`` / ``hessian``: dense derivatives through the runtime.

The Jacobian is assembled one output element at a time with ``autograd.grad`` (reverse
mode, a unit cotangent each); the Hessian is the Jacobian of the gradient, computed with
``create_graph=True``. Shapes follow PyTorch: ``output.shape + input.shape`` for one input
and one output, nested tuples for tuples of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .api import grad
from .bindings import RUNTIME
from .graph import tensor_type


def _prepare(inputs: Any, create_graph: bool) -> tuple[tuple[Any, ...], bool]:
    """The inputs to differentiate at: fresh leaves, or (with ``create_graph``) views of
    inputs that require grad, so the result stays connected to them (as PyTorch)."""
    tensor = tensor_type()
    is_tuple = isinstance(inputs, (tuple, list))
    items = tuple(inputs) if is_tuple else (inputs,)
    prepared = []
    for x in items:
        if not isinstance(x, tensor):
            raise TypeError(f"jacobian/hessian inputs must be Tensors, got {type(x).__name__}")
        if create_graph and x.requires_grad:
            prepared.append(x.view_as(x))
            continue
        leaf = x.detach()
        leaf._vc = [0]
        prepared.append(leaf.requires_grad_(True))
    return tuple(prepared), is_tuple


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False, strategy: str = "reverse-mode"
             ) -> Any:
    """d func(inputs) / d inputs, densely: shape ``out.shape + in.shape`` per pair."""
    tensor = tensor_type()
    xs, inputs_tuple = _prepare(inputs, create_graph)
    out = func(*xs)
    outputs_tuple = isinstance(out, tuple)
    outs = out if outputs_tuple else (out,)
    blocks = []
    for o in outs:
        rows: list[list[Any]] = [[] for _ in xs]
        for r in range(o._data.size):
            if not o.requires_grad:
                gs: tuple[Any, ...] = (None,) * len(xs)
            else:
                seed = np.zeros(o._data.size, dtype=o._data.dtype)
                seed[r] = 1
                gs = grad([o], list(xs), [tensor._wrap(seed.reshape(o._data.shape))],
                          retain_graph=True, create_graph=create_graph, allow_unused=True)
            for k, (g, x) in enumerate(zip(gs, xs)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {len(blocks)} of the user-provided "
                                           f"function is independent of input {k}. This is "
                                           "not allowed in strict mode.")
                    g = tensor._wrap(np.zeros_like(x._data))
                rows[k].append(g)
        per_input = []
        for k, x in enumerate(xs):
            if create_graph and rows[k]:
                block = RUNTIME.stack(rows[k]).reshape(o._data.shape + x._data.shape)
            else:
                data = [g._data for g in rows[k]]
                stacked = np.stack(data) if data else np.zeros((0, *x._data.shape))
                block = tensor._wrap(stacked.reshape(o._data.shape + x._data.shape))
            per_input.append(block)
        blocks.append(tuple(per_input) if inputs_tuple else per_input[0])
    return tuple(blocks) if outputs_tuple else blocks[0]


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func``: shape ``in.shape + in.shape`` per pair."""
    xs, inputs_tuple = _prepare(inputs, create_graph)

    def gradient(*args: Any) -> Any:
        out = func(*args)
        if not isinstance(out, tensor_type()) or out._data.size != 1:
            raise RuntimeError("The function given to hessian should return a single "
                               "element Tensor")
        gs = grad([out], list(args), create_graph=True, allow_unused=True)
        tensor = tensor_type()
        filled = tuple(g if g is not None else tensor._wrap(np.zeros_like(a._data))
                       for g, a in zip(gs, args))
        return filled if inputs_tuple else filled[0]

    return jacobian(gradient, xs if inputs_tuple else xs[0], create_graph=create_graph,
                    strict=strict)
