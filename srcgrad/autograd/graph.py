"""Backward nodes: what the engine walks (middle of the runtime).

Every node has ``next_functions``, a tuple of ``(node, input_nr)`` edges toward the leaves,
and ``apply(grads, create_graph)``, which maps the cotangents of its outputs to one
cotangent per edge. Node classes are named like PyTorch's (``MulBackward0``): one class
per name, made once by :func:`node_class` and cached, so ``type(fn).__name__`` and
``repr(fn)`` read as in PyTorch.

- ``RuleNode`` (:mod:`.rule_node`) is every operation of the rule table.
- :class:`ZeroGradNode` is a piecewise-constant op (``sign``, ``floor``): zero gradient.
- :class:`AccumulateGrad` ends every path at a leaf and adds into ``leaf.grad``.
- ``CopySlices`` (:mod:`.copy_slices`) is a write into part of a tensor.

The engine passes ndarrays between nodes, or Tensors when ``create_graph`` is on: then the
same rule bodies run on Tensors and record the backward pass itself.

Every node is stamped with its creation order (``_order``, from :func:`stamp`) once its
edges are made: an edge always points at a node made before it (an operation's inputs
exist before it runs), so running the newest node first is a topological order and the
engine needs no dependency count. ``AccumulateGrad`` sinks, made lazily when a leaf is
first used, have no edges and run after every operation (positive orders).
"""

from __future__ import annotations

import itertools
from heapq import heappush
from typing import Any

import numpy as np

from .bindings import RUNTIME

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

def tensor_type() -> Any:
    """The runtime's Tensor class (the tensor layer, above this one, binds it)."""
    return RUNTIME.tensor


# Operations count down (the newest node has the smallest order, the first the engine's
# heap pops); leaves' sinks count up, after every operation.
_OPERATIONS = itertools.count(-1, -1)
_SINKS = itertools.count(1)
stamp = _OPERATIONS.__next__


def stamp_several() -> float:
    """The order of a node with several outputs (``num_outputs > 1``): a float, which the
    written-out backwards (:mod:`.specialize`) tell from a one-output node's int by its
    type alone, where reading ``num_outputs`` of a node of any class is a slow lookup."""
    return float(stamp())


class Node:
    """A step of the backward pass. Subclasses set ``next_functions`` and ``apply``, and
    ``_order = stamp()`` after their edges (see the module docstring)."""

    __slots__ = ("next_functions", "_order", "__dict__", "__weakref__")

    # Rarely set; class-level defaults keep node creation cheap.
    _pre_hooks: list[Any] | None = None  # fn(grad_outputs) -> grad_outputs | None
    _post_hooks: list[Any] | None = None  # fn(grad_inputs, grad_outputs)
    _tensor_hooks: dict[int, list[Any]] | None = None  # output_nr -> tensor hooks
    _retained: dict[int, Any] | None = None  # output_nr -> weakref of a retain_grad tensor
    _trace: str | None = None  # forward stack, in anomaly mode
    _special = False  # set with any of the above: the engine's fast path checks only this
    _plan: Any = None  # a RuleNode's plan, whose written-out backward the engine calls
    num_outputs = 1  # (a node of several outputs is stamped with stamp_several)

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.__dict__.get("_metadata")
        if meta is None:
            meta = self.__dict__["_metadata"] = {}
        return meta

    def register_hook(self, fn: Any) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after this node ran; may return new inputs."""
        if self._post_hooks is None:
            self._post_hooks = []
            self._special = True
        self._post_hooks.append(fn)
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Any) -> RemovableHandle:
        """``fn(grad_outputs)`` before this node runs; may return replacement grads."""
        if self._pre_hooks is None:
            self._pre_hooks = []
            self._special = True
        self._pre_hooks.append(fn)
        return RemovableHandle(self._pre_hooks, fn)

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        raise TypeError(f"{self.name()} cannot be applied")  # every subclass overrides

    def release(self) -> None:
        """Free saved values after a backward pass without ``retain_graph``."""

    def saved_values(self) -> dict[str, Any]:
        """What this node keeps for its backward (for viz and debugging)."""
        return {}


def deliver(buffers: dict[Node, Any], heap: list[tuple[int, Node]], node: Node,
            child: Node, nr: int, g: Any) -> None:
    """The engine's step along one edge: add cotangent ``g`` for output ``nr`` of
    ``child`` (an edge of ``node``) into ``buffers`` (the array itself for a one-output
    node, a list per output otherwise); the first to arrive puts ``child`` on the heap."""
    if child.num_outputs == 1:
        old = buffers.get(child)
        if old is not None:
            buffers[child] = old + g
            return
        buffers[child] = g
    else:
        pending = buffers.get(child)
        if pending is not None:
            old = pending[nr]
            pending[nr] = g if old is None else old + g
            return
        buffers[child] = pending = [None] * child.num_outputs
        pending[nr] = g
    if child._order <= node._order:  # it would run too late: refuse, never misorder
        raise RuntimeError(f"srcgrad internal error: backward node {node.name()} has an edge "
                           f"to {child.name()}, which was made after it, so the engine "
                           "cannot order them; please report this")
    heappush(heap, (child._order, child))


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks: list[Any], fn: Any) -> None:
        self._hooks: list[Any] | None = hooks
        self._fn = fn

    def remove(self) -> None:
        hooks, self._hooks = self._hooks, None
        if hooks is not None:
            for i, h in enumerate(hooks):
                if h is self._fn:
                    del hooks[i]
                    break

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


_NODE_CLASSES: dict[tuple[str, type], type] = {}


def node_class(name: str, base: type) -> type:
    """The node class called ``name`` (PyTorch's name) deriving from ``base``, built once
    and cached."""
    key = (name, base)
    cls = _NODE_CLASSES.get(key)
    if cls is None:
        cls = type(name, (base,), {"__slots__": (), "__module__": "srcgrad.autograd.graph"})
        _NODE_CLASSES[key] = cls
    return cls


def modified_message(t: Any, version: int, node: Node, name: str, counter: Any = None,
                     data: Any = None) -> str:
    """PyTorch's error for a saved value changed in place before its backward ran."""
    if t is not None:
        data, counter = t._data, t._vc
        fn = t._grad_fn
        origin = "" if fn is None else f", which is output {t._output_nr} of {_op_name(fn)},"
    else:
        origin = f", which is output 0 of {_op_name(node)},"
    kind = RUNTIME.dtype_name(data.dtype)
    shape = ", ".join(str(n) for n in data.shape)
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [srcgrad.{kind} [{shape}]]{origin} is at version "
            f"{counter[0]}; expected version {version} instead. Hint: enable anomaly "
            "detection to find the operation that failed to compute its gradient, with "
            "srcgrad.autograd.set_detect_anomaly(True).")


def _op_name(fn: Node) -> str:
    name = type(fn).__name__
    stem = name.split("Backward")[0]
    return stem or name


class ZeroGradNode(Node):
    """The backward of a piecewise-constant function (``sign``, ``floor``, ``round``...).

    Its derivative is zero wherever it exists; PyTorch still records it, so the result
    requires grad and a backward through it gives zeros instead of an error.
    """

    __slots__ = ("_shapes",)

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        if create_graph:
            tensor = tensor_type()
            return [None if s is None else tensor._wrap(np.zeros(*s)) for s in self._shapes]
        return [None if s is None else np.zeros(*s) for s in self._shapes]


# --- leaves -------------------------------------------------------------------------

class AccumulateGrad(Node):
    """The end of every path at a leaf: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        self.next_functions = ()
        self._order = next(_SINKS)
        self.variable = variable

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        g = grads[0]
        if g is None:
            return []
        var = self.variable
        g = run_tensor_hooks(var._hooks, g, create_graph)
        accumulate(var, g, create_graph)
        return []


def accumulate(var: Any, g: Any, create_graph: bool) -> None:
    """``var.grad += g`` as PyTorch does it: in place unless building a graph."""
    tensor = tensor_type()
    old = var._grad
    if create_graph:
        gt = g if isinstance(g, tensor) else tensor._wrap(np.asarray(g))
        var._grad = gt if old is None else old + gt
        return
    data = g._data if isinstance(g, tensor) else g
    if old is None:
        data = np.array(data, dtype=var._data.dtype, copy=True)
        var._grad = tensor._wrap(data)
    elif old._grad_fn is None and old._data.flags.writeable and old._data.shape == data.shape:
        old._data += data
        old._vc[0] += 1
    else:
        var._grad = tensor._wrap(np.asarray(old._data + data))


def run_tensor_hooks(hooks: list[Any] | None, g: Any, create_graph: bool) -> Any:
    """Call a tensor's hooks in order; a hook returning a value replaces the gradient."""
    if not hooks:
        return g
    tensor = tensor_type()
    as_tensor = isinstance(g, tensor)
    gt = g if as_tensor else tensor._wrap(g)
    for hook in list(hooks):
        new = hook(gt)
        if new is not None:
            gt = new if isinstance(new, tensor) else tensor._wrap(np.asarray(new))
    return gt if (as_tensor or create_graph) else gt._data
