"""Backward nodes: what the engine walks (middle of the runtime).

Every node has ``next_functions``, a tuple of ``(node, input_nr)`` edges toward the leaves,
and ``apply(grads, create_graph)``, which maps the cotangents of its outputs to one
cotangent per edge. Node classes are named like PyTorch's (``MulBackward0``): one class
per name, made once by :func:`node_class` and cached, so ``type(fn).__name__`` and
``repr(fn)`` read as in PyTorch.

- :class:`RuleNode` is every operation of the rule table: its ``apply`` calls the rule's
  VJP for each input that needs a gradient and undoes broadcasting with the table's
  ``unbroadcast``. It saves only what the rule asks for (``rule.saved_names``): inputs as
  the tensors themselves (with their version, checked at backward), the result as its data
  plus the version counter (no reference back to the tensor, so no cycle), shapes and
  static parameters as plain values.
  :mod:`.fast_backward` compiles the same lookup per call form for speed.
- :class:`ZeroGradNode` is a piecewise-constant op (``sign``, ``floor``): zero gradient.
- :class:`AccumulateGrad` ends every path at a leaf and adds into ``leaf.grad``.
- ``CopySlices`` (:mod:`.copy_slices`) is a write into part of a tensor.

The engine passes ndarrays between nodes, or Tensors when ``create_graph`` is on: then the
same rule bodies run on Tensors and record the backward pass itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules.helpers import unbroadcast
from ..rules.shape import astype
from .bindings import RUNTIME
from .fast_backward import compile_backward

_UNBROADCAST = unbroadcast.__srcgrad_impl__

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

_UNCOMPILED = object()


def tensor_type() -> Any:
    """The runtime's Tensor class (the tensor layer, above this one, binds it)."""
    return RUNTIME.tensor


class Node:
    """A step of the backward pass. Subclasses set ``next_functions`` and ``apply``."""

    __slots__ = ("next_functions", "__dict__", "__weakref__")

    # Rarely set; class-level defaults keep node creation cheap.
    _pre_hooks: list[Any] | None = None  # fn(grad_outputs) -> grad_outputs | None
    _post_hooks: list[Any] | None = None  # fn(grad_inputs, grad_outputs)
    _tensor_hooks: dict[int, list[Any]] | None = None  # output_nr -> tensor hooks
    _retained: dict[int, Any] | None = None  # output_nr -> weakref of a retain_grad tensor
    _trace: str | None = None  # forward stack, in anomaly mode
    _special = False  # set with any of the above: the engine's fast path checks only this
    num_outputs = 1

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


def node_class(name: str, base: type | None = None) -> type:
    """The node class called ``name`` (PyTorch's name), built once and cached."""
    base = base or RuleNode
    key = (name, base)
    cls = _NODE_CLASSES.get(key)
    if cls is None:
        cls = type(name, (base,), {"__slots__": (), "__module__": "srcgrad.autograd.graph"})
        _NODE_CLASSES[key] = cls
    return cls


# --- rule nodes ---------------------------------------------------------------------

class Plan:
    """What a node of one rule keeps and computes, for one set of inputs needing grad.

    Built once per (call form, inputs needing grad) and shared by all its nodes, so the
    per-operation path only copies values, never inspects the rule. ``calls`` holds, per
    input whose gradient is computed, the rule's own VJP function and the names it reads
    (``rule.vjp[name]`` and ``rule.needs[name]``: exactly what ``rule.call_vjp`` calls,
    looked up once instead of per node).
    """

    __slots__ = ("rule", "wrt", "save_inputs", "save_shapes", "save_dtypes", "save_params",
                 "save_out", "variadic", "edge_slots", "arity", "calls", "broadcasts",
                 "save_meta", "tensors", "fast")

    def __init__(self, rule: Any, names: tuple[str, ...], wrt: tuple[int, ...],
                 edge_of: tuple[Any, ...], requires: tuple[bool, ...] = (),
                 arity: int = 0, tensors: tuple[bool, ...] = ()) -> None:
        self.rule = rule
        self.tensors = tensors or (True,) * len(names)  # which inputs are Tensors
        self.fast: Any = _UNCOMPILED  # the compiled backward (fast_backward), made lazily
        wanted = rule.saved_names([names[i] for i in wrt])
        # (input position, name, edge slot) for every input whose gradient we compute
        self.wrt = tuple((i, names[i], edge_of[i]) for i in wrt)
        self.save_inputs = tuple((i, n) for i, n in enumerate(names) if n in wanted)
        self.save_shapes = tuple((i, f"{n}_shape") for i, n in enumerate(names)
                                 if f"{n}_shape" in wanted)
        self.save_dtypes = tuple((i, f"{n}_dtype") for i, n in enumerate(names)
                                 if f"{n}_dtype" in wanted)
        self.save_params = tuple(p for p in rule.params if p in wanted)
        self.save_out = "out" in wanted
        self.save_meta = bool(self.save_shapes or self.save_dtypes or self.save_params)
        self.variadic = rule.variadic
        self.edge_slots = tuple((i, edge_of[i]) for i, r in enumerate(requires)
                                if r and edge_of[i] is not None)
        self.arity = arity
        self.broadcasts = rule.broadcasts
        self.calls = tuple(
            (k, rule.vjp[name], rule.needs[name], slot, name == rule.variadic,
             not rule.user)
            for k, (_, name, slot) in enumerate(self.wrt) if slot is not None)


class RuleNode(Node):
    """A node of the rule table: the backward of one recorded operation."""

    __slots__ = ("_plan", "_saved", "_versions", "_targets")
    _released = False  # set once its saved tensors were freed

    def saved_values(self) -> dict[str, Any]:
        return dict(self._saved or {})

    def release(self) -> None:
        # Saved tensors go (PyTorch frees them); shapes and static params stay.
        if self._saved is not None and (self._versions or self._plan.save_out):
            self._released = True
            self._saved = None

    def _unpack(self, create_graph: bool) -> dict[str, Any]:
        saved = self._saved
        if saved is None:
            if self._released:
                raise RuntimeError(FREED_MESSAGE)
            saved = {}
        env = dict(saved)
        for name, version in self._versions:
            t = env[name]
            if version is None:  # a variadic input: a list of tensors / values
                env[name] = [(v if create_graph else v._data) if isinstance(v, RUNTIME.tensor)
                             else v for v in t]
                continue
            if t._vc[0] != version:
                raise RuntimeError(modified_message(t, version, self, name))
            if not create_graph:
                env[name] = t._data
        if self._plan.save_out:
            data, counter, version = env["out"]
            if counter[0] != version:
                raise RuntimeError(modified_message(None, version, self, "out", counter,
                                                    data))
            if create_graph:
                out = RUNTIME.tensor._wrap(data, self, 0)
                out._vc = counter
                env["out"] = out
            else:
                env["out"] = data
        return env

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        plan = self._plan
        if not create_graph:
            fast = plan.fast
            if fast is _UNCOMPILED:
                fast = plan.fast = compile_backward(plan, _fit)
            if fast is not None:
                result = fast(self, grads[0])
                if result is not None:
                    return result
        saved = self._saved
        if create_graph or saved is None or plan.save_out:
            env = self._unpack(create_graph)
        else:  # the common case, inlined: saved inputs are read as their arrays
            env = dict(saved)
            for name, version in self._versions:
                t = env[name]
                if version is None or t._vc[0] != version:
                    env = self._unpack(False)  # a list, or an error to raise: the full path
                    break
                env[name] = t._data
        env["g"] = grads[0]
        result: list[Any] = [None] * len(self.next_functions)
        targets = self._targets
        for k, fn, needs, slot, variadic, positional in plan.calls:
            target = None if targets is None else targets[k]
            if variadic:
                for j, s in enumerate(slot):
                    env["i"] = j
                    result[s] = _fit(fn(**{n: env[n] for n in needs}), target[j])
            elif positional:
                ct = fn(*[env[n] for n in needs])
                result[slot] = ct if target is None else _fit(ct, target)
            else:
                result[slot] = _fit(plan.rule.call_vjp(plan.wrt[k][1], env), target)
            if create_graph and not variadic:
                result[slot] = self._link_zero(result[slot], needs, env)
        return result

    def _link_zero(self, ct: Any, needs: tuple[str, ...], env: dict[str, Any]) -> Any:
        """Under ``create_graph``, a cotangent whose formula read tensors requiring grad
        depends on them, if only with derivative zero (``relu``'s mask of ``out``): as in
        PyTorch it then requires grad, so differentiating it again gives zeros."""
        tensor = RUNTIME.tensor
        if not isinstance(ct, tensor) or ct._rg:
            return ct
        sources = [env[n] for n in needs if n != "g" and isinstance(env[n], tensor) and env[n]._rg]
        if not sources:
            return ct
        stem = type(self).__name__.rsplit("Backward", 1)[0]
        node = object.__new__(node_class(f"{stem}BackwardBackward0", ZeroGradNode))
        node.next_functions = tuple(
            (t._grad_fn, t._output_nr) if t._grad_fn is not None else (t._accumulator(), 0)
            for t in sources)
        node._shapes = [(t._data.shape, t._data.dtype) for t in sources]
        linked = tensor._wrap(ct._data, node, 0)
        linked._vc = ct._vc
        return linked


def _fit(ct: Any, target: Any) -> Any:
    """Undo broadcasting and restore the input's dtype; ``target`` = (shape, dtype)|None."""
    if target is None:
        return ct
    shape, dtype = target
    if shape is not None and np.shape(ct) != shape:
        ct = unbroadcast(ct, shape) if not isinstance(ct, np.ndarray) else _UNBROADCAST(ct, shape)
        if np.shape(ct) != shape:
            ct = np.broadcast_to(ct, shape)
    if dtype is not None and ct.dtype != dtype:
        ct = astype(ct, dtype)
    return ct


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
