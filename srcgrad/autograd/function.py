"""``sg.autograd.Function``: user-defined operations with their own backward.

As in PyTorch: subclass, write ``forward(ctx, *args)`` (or ``forward(*args)`` plus
``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)``, call
``MyFn.apply(...)``. The forward runs with grad mode off; its outputs get a node of the
class ``<Name>Backward`` whose ``next_functions`` has one edge per Tensor argument.
``backward`` returns one gradient per argument of ``forward`` (``None`` for arguments
without one, such as non-Tensors). Under ``create_graph`` the backward runs with grad mode
on, so a backward written with Tensor operations can be differentiated again.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .anomaly import ANOMALY, forward_trace
from .bindings import RUNTIME
from .grad_mode import ALL_THREADS, STATE, no_grad
from .graph import (
    FREED_MESSAGE,
    Node,
    modified_message,
    node_class,
    stamp,
    stamp_several,
    tensor_type,
)


class FunctionCtx:
    """The ``ctx`` a custom Function's ``forward`` and ``backward`` share."""

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True
        self._saved: list[tuple[Any, int]] | None = []
        self._released = False
        self._non_differentiable: set[int] = set()
        self._dirty: tuple[Any, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep ``tensors`` for ``backward`` (checked for in-place changes when read)."""
        tensor = tensor_type()
        for t in tensors:
            if t is not None and not isinstance(t, tensor):
                raise TypeError(f"save_for_backward can only save Tensors or None, got "
                                f"{type(t).__name__}")
        self._saved = [(t, -1 if t is None else t._vc[0]) for t in tensors]

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self._saved is None:
            raise RuntimeError(FREED_MESSAGE)
        for t, version in self._saved:
            if t is not None and t._vc[0] != version:
                raise RuntimeError(modified_message(t, version, self._node(), "saved"))
        return tuple(t for t, _ in self._saved)

    def _node(self) -> Any:
        return getattr(self, "_owner", None)

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors: Any) -> None:
        self._dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)


class FunctionNode(Node):
    """The backward node of a custom Function: calls the user's ``backward``."""

    __slots__ = ("_fn_cls", "_ctx", "_arg_slots", "_shapes", "_n_args")

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        tensor = tensor_type()
        ctx = self._ctx
        wrapped = []
        for g, shape_dtype in zip(grads, self._shapes):
            if g is None and ctx.materialize_grads and shape_dtype is not None:
                g = np.zeros(*shape_dtype)
            wrapped.append(None if g is None else (g if isinstance(g, tensor)
                                                   else tensor._wrap(g)))
        result = self._fn_cls.backward(ctx, *wrapped)
        if not isinstance(result, tuple):
            result = (result,)
        name = type(self).__name__
        if len(result) != self._n_args:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {self._n_args}, got {len(result)})")
        out: list[Any] = [None] * len(self.next_functions)
        for i, (slot, target) in self._arg_slots.items():
            g = result[i]
            if g is None or self.next_functions[slot][0] is None:
                continue
            if not isinstance(g, tensor):
                raise TypeError(f"function {name} returned a gradient of type "
                                f"{type(g).__name__} at index {i}; expected a Tensor or None")
            shape, dtype = target
            if g.shape != shape:
                try:
                    np.broadcast_shapes(g.shape, shape)
                except ValueError:
                    raise RuntimeError(f"Function {name} returned an invalid gradient at index "
                                       f"{i} - got {list(g.shape)} but expected shape "
                                       f"compatible with {list(shape)}") from None
                from ..rules.helpers import unbroadcast

                g = unbroadcast(g, shape)
            out[slot] = g if create_graph else np.asarray(g._data, dtype=dtype)
        return out

    def release(self) -> None:
        self._ctx._saved = None


class Function:
    """Base class of user-defined differentiable operations (PyTorch's API)."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("subclasses of sg.autograd.Function must define a forward staticmethod")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise TypeError("subclasses of sg.autograd.Function must define a backward "
                        "staticmethod to be differentiated")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        return None

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        tensor = tensor_type()
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, tensor) and a.requires_grad for a in args)
        separate_setup = "setup_context" in _overrides(cls)
        with no_grad():
            if separate_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not ((ALL_THREADS.grad or STATE.enabled) and any(ctx.needs_input_grad)):
            return output
        return _connect(cls, ctx, args, output)


def _overrides(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is Function:
            break
        names.update(vars(klass))
    return names


def _connect(cls: type, ctx: FunctionCtx, args: tuple[Any, ...], output: Any) -> Any:
    """Give the outputs of ``cls.forward`` a ``<Name>Backward`` node."""
    edge, requires = RUNTIME.edge, RUNTIME.requires
    tensor = tensor_type()
    node = node_class(f"{cls.__name__}Backward", FunctionNode).__new__(
        node_class(f"{cls.__name__}Backward", FunctionNode))
    edges, slots = [], {}
    for i, a in enumerate(args):
        if isinstance(a, tensor):
            slots[i] = (len(edges), (a._data.shape, a._data.dtype))
            edges.append(edge(a) if requires(a) else (None, 0))
    node.next_functions = tuple(edges)
    outputs = output if isinstance(output, tuple) else (output,)
    node._order = stamp() if len(outputs) == 1 else stamp_several()
    node._fn_cls, node._ctx, node._arg_slots, node._n_args = cls, ctx, slots, len(args)
    ctx._owner = node
    node.num_outputs = len(outputs)
    node._shapes = [(o._data.shape, o._data.dtype) if isinstance(o, tensor) else None
                    for o in outputs]
    if ANOMALY.enabled:
        node._trace = forward_trace()
        node._special = True
    inputs_by_id = {id(a) for a in args}
    connected = []
    for k, o in enumerate(outputs):
        if isinstance(o, tensor) and o._data.dtype.kind == "f" \
                and id(o) not in ctx._non_differentiable:
            if id(o) in inputs_by_id and o not in ctx._dirty:
                fresh = tensor._wrap(o._data)  # an input returned as is: a new alias
                fresh._vc = o._vc
                o = fresh
            o._grad_fn, o._output_nr, o._rg = node, k, True
        connected.append(o)
    return tuple(connected) if isinstance(output, tuple) else connected[0]


def once_differentiable(fn: Any) -> Any:
    """Decorate ``backward``: it runs with grad mode off (no double backward)."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            return fn(ctx, *grads)

    return wrapper
