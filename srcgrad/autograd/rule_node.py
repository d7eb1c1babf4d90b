"""The node of a recorded operation: its rule, what the rule's VJPs read, one way to apply.

Every operation of the rule table the runtime records (Tensor methods, operators,
``sg.*`` functions, NumPy functions on Tensors) gets one :class:`RuleNode`. Its
:class:`Plan`, shared by every node of one call form and one set of inputs needing grad,
says what the node keeps: the inputs the VJPs read (the Tensors themselves, with their
versions, checked at backward), the result as its data plus version counter (no reference
back to the result tensor, so no cycle), shapes, dtypes and static parameters as values.

Backward applies the rule one way: :meth:`RuleNode.apply` puts the saved values, as
arrays (or, with ``create_graph``, as Tensors, so the same rule bodies record the backward
pass and higher order comes for free) into an environment and calls ``rule.call_vjp``
per input, then undoes broadcasting and dtype promotion (:func:`fit`).

Recording is one function too, :func:`build_node`. :mod:`.specialize` writes both out as
straight-line code per plan (the same steps, the same rule functions), behind its switch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules.helpers import unbroadcast
from ..rules.shape import astype
from . import specialize as _switch
from .anomaly import ANOMALY, forward_trace
from .bindings import RUNTIME
from .graph import (
    FREED_MESSAGE,
    Node,
    ZeroGradNode,
    deliver,
    modified_message,
    node_class,
    stamp,
)
from .specialize import specialize

_UNBROADCAST = unbroadcast.__srcgrad_impl__
NO_EDGE = (None, 0)
_new = object.__new__


class Plan:
    """What the nodes of one call form keep and compute, for one set of inputs needing
    grad; decided once, so recording an operation only copies references."""

    __slots__ = ("rule", "node_cls", "wrt", "save_inputs", "save_shapes", "save_dtypes",
                 "save_params", "save_out", "variadic", "edge_slots", "arity", "broadcasts",
                 "tensors", "defaults", "build", "quick", "backward", "frees", "versioned",
                 "saved_names", "target_cache")

    def __init__(self, rule: Any, node_cls: type, names: tuple[str, ...],
                 wrt: tuple[int, ...], edge_of: tuple[Any, ...], requires: tuple[bool, ...],
                 arity: int, tensors: tuple[bool, ...], defaults: Any) -> None:
        self.rule = rule
        self.node_cls = node_cls
        self.tensors = tensors  # which inputs are Tensors in this call form
        self.defaults = defaults  # params -> params completed with the rule's defaults
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
        # the saved inputs that are Tensors: a node's ``_versions`` are theirs, in this order
        self.versioned = tuple(n for i, n in self.save_inputs
                               if tensors[i] and n != rule.variadic)
        # a node's ``_saved`` is one tuple: these values in this order, then the versions
        # of ``versioned`` (no dict per node; :meth:`RuleNode.saved_values` names them)
        self.saved_names = (*(n for _, n in self.save_inputs), *(n for _, n in self.save_shapes),
                            *(n for _, n in self.save_dtypes), *self.save_params,
                            *(("out",) if self.save_out else ()))
        self.variadic = rule.variadic
        self.target_cache: dict[Any, Any] = {}  # (see targets)
        self.edge_slots = tuple((i, edge_of[i]) for i, r in enumerate(requires)
                                if r and edge_of[i] is not None)
        self.arity = arity
        self.broadcasts = rule.broadcasts
        # Without saved tensors a node can be run again (PyTorch: only saved tensors free)
        self.frees = self.save_out or any(tensors[i] for i, _ in self.save_inputs)
        self.build, self.quick, self.backward = specialize(self, _HELPERS)
        _PLANS.append(self)


class RuleNode(Node):
    """A node of the rule table: the backward of one recorded operation."""

    # ``_saved``: the values named by the plan's ``saved_names``, then the versions of its
    # ``versioned`` tensors, in one tuple; None once they were freed (``release``)
    __slots__ = ("_plan", "_saved", "_targets")

    def saved_values(self) -> dict[str, Any]:
        return dict(zip(self._plan.saved_names, self._saved or ()))

    def release(self) -> None:
        # Saved tensors go (PyTorch frees them); a node saving only shapes and params stays.
        if self._saved is not None and self._plan.frees:
            self._saved = None

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        plan = self._plan
        env = self._unpack(create_graph)
        env["g"] = grads[0]
        rule = plan.rule
        result: list[Any] = [None] * len(self.next_functions)
        targets = self._targets
        for k, (_, name, slot) in enumerate(plan.wrt):
            if slot is None:  # no edge for it in PyTorch's node (``3 - x``'s 3)
                continue
            target = None if targets is None else targets[k]
            if name == plan.variadic:
                for j, s in enumerate(slot):
                    env["i"] = j
                    result[s] = fit(rule.call_vjp(name, env), target[j])
                continue
            ct = fit(rule.call_vjp(name, env), target)
            result[slot] = self._link_zero(ct, rule.needs[name], env) if create_graph else ct
        return result

    def _unpack(self, create_graph: bool) -> dict[str, Any]:
        """The saved values as the VJPs read them: arrays, or Tensors to record on."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        names = self._plan.saved_names
        env = dict(zip(names, saved))
        tensor = RUNTIME.tensor
        for name, version in zip(self._plan.versioned, saved[len(names):]):
            t = env[name]
            if t._vc[0] != version:
                raise RuntimeError(modified_message(t, version, self, name))
            if not create_graph:
                env[name] = t._data
        for _, name in self._plan.save_inputs:
            items = env[name]
            if type(items) is list:  # a list input (variadic): tensors / values
                env[name] = [(v if create_graph else v._data) if isinstance(v, tensor)
                             else v for v in items]
        if self._plan.save_out:
            data, counter, version = env["out"]
            if counter[0] != version:
                raise RuntimeError(modified_message(None, version, self, "out", counter,
                                                    data))
            if create_graph:
                out = tensor._wrap(data, self, 0)
                out._vc = counter
                env["out"] = out
            else:
                env["out"] = data
        return env

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
        node = _new(node_class(f"{stem}BackwardBackward0", ZeroGradNode))
        node.next_functions = tuple(
            (t._grad_fn, t._output_nr) if t._grad_fn is not None else (t._accumulator(), 0)
            for t in sources)
        node._order = stamp()
        node._shapes = [(t._data.shape, t._data.dtype) for t in sources]
        linked = tensor._wrap(ct._data, node, 0)
        linked._vc = ct._vc
        return linked


def fit(ct: Any, target: Any) -> Any:
    """Undo broadcasting and restore the input's dtype; ``target`` = (shape, dtype)|None."""
    if target is None:
        return ct
    shape, dtype = target
    # (an ndarray's own shape: np.shape's wrapper costs as much as a small reduction)
    if shape is not None and (ct.shape if type(ct) is np.ndarray else np.shape(ct)) != shape:
        ct = unbroadcast(ct, shape) if not isinstance(ct, np.ndarray) else _UNBROADCAST(ct, shape)
        if np.shape(ct) != shape:
            ct = np.broadcast_to(ct, shape)
    if dtype is not None and ct.dtype != dtype:
        ct = astype(ct, dtype)
    return ct


# --- recording: the write side of the tape -------------------------------------------

def build_node(plan: Plan, inputs: tuple[Any, ...], sources: tuple[Any, ...],
               arrays: tuple[Any, ...], result: Any, params: dict[str, Any] | None) -> Any:
    """Give ``result`` a node of ``plan``: edges to the histories of ``sources`` (an
    in-place op saves a copy of its old self but links to the tensor's history), what
    the VJPs read from ``inputs``/``arrays``/``params``, and where a cotangent must be
    unbroadcast. Returns the node (None when no input's gradient is computed)."""
    if not plan.wrt:
        return None
    edge, requires = RUNTIME.edge, RUNTIME.requires
    node = plan.node_cls()  # (no __init__: see specialize._node_lines)
    if plan.variadic is None:
        edges = [NO_EDGE] * plan.arity
        for i, slot in plan.edge_slots:
            edges[slot] = edge(sources[i])
    else:
        edges = [edge(v) if requires(v) else NO_EDGE for v in sources[0]]
        plan = variadic_plan(plan, len(edges))
    saved: dict[str, Any] = {}  # (as a tuple on the node, in the plan's saved_names order)
    for i, name in plan.save_inputs:
        x = inputs[i]
        saved[name] = list(x) if isinstance(x, (list, tuple)) else x
    for i, name in plan.save_shapes:
        a = arrays[i]
        saved[name] = tuple(np.shape(v) for v in a) if isinstance(a, list) else np.shape(a)
    for i, name in plan.save_dtypes:
        a = arrays[i]
        saved[name] = (tuple(np.result_type(v) for v in a) if isinstance(a, list)
                       else np.result_type(a))
    if plan.save_params:
        full = plan.defaults(plan.rule, params or {})
        for name in plan.save_params:
            saved[name] = full[name]
    out = result._data
    if plan.save_out:
        saved["out"] = (out, result._vc, result._vc[0])
    node.next_functions = tuple(edges)
    node._order = stamp()
    node._plan = plan
    node._saved = (*(saved[name] for name in plan.saved_names),
                   *(saved[name]._vc[0] for name in plan.versioned))
    node._targets = targets(plan, arrays, out)
    if ANOMALY.enabled:
        node._trace = forward_trace()
        node._special = True
    result._grad_fn = node
    result._rg = True
    return node


def targets(plan: Plan, arrays: tuple[Any, ...], out: np.ndarray) -> list[Any] | None:
    """Per input whose gradient is computed: where its cotangent must be unbroadcast or
    cast back to its dtype (most operations: nowhere, giving None).

    A function of the arrays' and the result's shapes and dtypes only, so kept per plan
    under them (``t - t.mean()`` meets the same shapes on every step; the nodes only read
    what they share)."""
    if plan.variadic is not None:
        return _targets(plan, arrays, out)
    wrt = plan.wrt
    if len(wrt) == 2:
        x, y = arrays[wrt[0][0]], arrays[wrt[1][0]]
        key: Any = (out.shape, out.dtype, x.shape, x.dtype, y.shape, y.dtype)
    else:
        key = (out.shape, out.dtype, *((arrays[i].shape, arrays[i].dtype) for i, _, _ in wrt))
    cache = plan.target_cache
    try:
        return cache[key]
    except KeyError:
        pass
    found = cache[key] = _targets(plan, arrays, out)
    if len(cache) > 64:  # (ever-new shapes: start over)
        cache.clear()
    return found


def _targets(plan: Plan, arrays: tuple[Any, ...], out: np.ndarray) -> list[Any] | None:
    found = None
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
        if found is None:
            found = [None] * len(plan.wrt)
        found[k] = target
    return found


def _target(shape: tuple[int, ...], dtype: Any, out_shape: tuple[int, ...], out_dtype: Any,
            broadcasts: bool) -> tuple[Any, Any] | None:
    fix_shape = shape if broadcasts and shape != out_shape else None
    fix_dtype = dtype if dtype != out_dtype and dtype.kind == "f" else None
    if fix_shape is None and fix_dtype is None:
        return None
    return fix_shape, fix_dtype


_PLANS: list[Plan] = []  # every plan made, for set_specialized
# each plan's (build, backward) per setting, so switching back and forth (a test fixture
# per test) writes no plan's code twice: _PLANS keeps the plans, hence their ids, alive
_BY_SETTING: dict[tuple[int, bool], tuple[Any, Any, Any]] = {}


def set_specialized(flag: bool) -> bool:
    """Switch :mod:`.specialize` on or off for every plan, made or to come (tests run the
    runtime both ways); returns the previous setting."""
    previous, _switch.SPECIALIZE = _switch.SPECIALIZE, bool(flag)
    if previous == _switch.SPECIALIZE:
        return previous
    for plan in _PLANS:
        _BY_SETTING[id(plan), previous] = plan.build, plan.quick, plan.backward
        made = _BY_SETTING.get((id(plan), _switch.SPECIALIZE))
        plan.build, plan.quick, plan.backward = (made if made is not None
                                                 else specialize(plan, _HELPERS))
    return previous


_VARIADIC_PLANS: dict[tuple[int, int], Plan] = {}
_KEEP: list[Plan] = []  # keeps the id() keys of _VARIADIC_PLANS valid


def variadic_plan(plan: Plan, count: int) -> Plan:
    """A plan whose variadic input's slots are spelled out for ``count`` elements."""
    key = (id(plan), count)
    found = _VARIADIC_PLANS.get(key)
    if found is None:
        found = Plan.__new__(Plan)
        for attr in Plan.__slots__:
            setattr(found, attr, getattr(plan, attr))
        found.wrt = tuple((i, n, tuple(range(count)) if n == plan.variadic else s)
                          for i, n, s in plan.wrt)
        _VARIADIC_PLANS[key] = found
        _KEEP.append(plan)
    return found


_HELPERS = {"fit": fit, "targets": targets, "build_node": build_node, "NO_EDGE": NO_EDGE,
            "deliver": deliver,
            "RUNTIME": RUNTIME, "ANOMALY": ANOMALY, "forward_trace": forward_trace,
            "new": _new, "stamp": stamp}
