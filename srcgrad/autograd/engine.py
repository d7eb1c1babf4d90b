"""The backward engine: a walk from the outputs in reverse creation order, summing cotangents.

micrograd's loop, grown up. Every node carries its creation order (``graph.stamp``) and
an edge always points at an older node, so running the newest pending node first (a heap,
no recursion: a 100,000-node chain must not touch Python's recursion limit) runs each
node after every node that feeds it, with no pass to count dependencies; cotangents
arriving at a node are summed before its ``apply``. ``backward`` ends paths in
``AccumulateGrad`` nodes (``leaf.grad +=``); ``grad`` instead captures what arrives at the
requested tensors and runs only the nodes on paths toward them (found by a topological
sort of the reachable graph). Without ``retain_graph`` each node frees its saved values
after it ran, so a second pass raises PyTorch's error.
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import heappop, heappush
from typing import Any

import numpy as np

from .anomaly import ANOMALY
from .fp_errors import IGNORE, quiet, restore
from .grad_mode import STATE
from .graph import AccumulateGrad, Node, accumulate, deliver, run_tensor_hooks, tensor_type
from .node_hooks import pre_hooks as _pre_hooks
from .node_hooks import run_special as _run_special
from .rule_node import RuleNode

Edge = tuple[Node, int]
_NOTHING = (None,)


def grad_edge(t: Any) -> Edge:
    """Where a cotangent for tensor ``t`` enters the graph: its node, or its leaf's sink."""
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    return t._accumulator(), 0


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _seed(roots: list[Any], grads: list[Any], create_graph: bool) -> list[Any]:
    """Validate the outputs and their cotangents (implicit ones only for one element)."""
    tensor = tensor_type()
    if grads and len(grads) != len(roots):
        raise RuntimeError(f"got {len(grads)} tensors in grad_tensors / grad_outputs but "
                           f"{len(roots)} outputs")
    seeds = []
    for i, root in enumerate(roots):
        if type(root) is not tensor and not isinstance(root, tensor):
            raise TypeError(f"backward/grad expects Tensors as outputs, got "
                            f"{type(root).__name__} at index {i}")
        if not (root._rg or root.requires_grad):  # (a view's flag may be stale)
            hint = "" if root.dtype.is_floating_point else (
                f" (it is an integer tensor of dtype {root.dtype.name}: only floating point "
                "tensors can require gradients)")
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               f"have a grad_fn{hint}")
        g = grads[i] if grads else None
        if g is None:
            if root._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.empty(root._data.shape, root._data.dtype)
            g.fill(1)  # (np.ones is np.empty and np.copyto: its dispatch costs more)
        elif isinstance(g, tensor):
            if g._data.shape != root._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g._data.shape} and output[{i}] has a shape of "
                                   f"{root._data.shape}.")
            g = g if create_graph else g._data
        else:
            g = np.asarray(g, dtype=root._data.dtype)
            if g.shape != root._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of "
                                   f"{root._data.shape}.")
        if create_graph and not isinstance(g, tensor):
            g = tensor._wrap(np.asarray(g))
        seeds.append(g)
    return seeds


def _dependencies(roots: list[Node]) -> dict[Node, int]:
    """For every node reachable from ``roots``, how many edges point at it.

    A node is pushed the first time an edge reaches it (its count was 0), so the walk
    needs no separate visited set; the roots, pushed at the start, are never pushed again.
    """
    dependents: dict[Node, int] = {}
    get = dependents.get
    stack = list(dict.fromkeys(roots))
    root_set = set(stack)
    push = stack.append
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                count = get(child, 0)
                dependents[child] = count + 1
                if not count and child not in root_set:
                    push(child)
    return dependents


def _topological_order(roots: list[Node], dependents: dict[Node, int]) -> list[Node]:
    """Every node reachable from ``roots``, each after all the nodes that feed it."""
    left = dict(dependents)
    ready = [n for n in dict.fromkeys(roots) if n not in left]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                left[child] -= 1
                if left[child] == 0:
                    ready.append(child)
    return order


def _runnable(order: list[Node], targets: set[Node], accumulate_grads: bool) -> set[Node]:
    """The nodes worth running: those with a target below them (and, for ``backward``,
    the targets' own ``AccumulateGrad`` sinks)."""
    run: set[Node] = set()
    for node in reversed(order):  # children come before their parents here
        if any(c in targets or c in run for c, _ in node.next_functions if c is not None):
            run.add(node)
    if accumulate_grads:
        run.update(n for n in targets if type(n) is AccumulateGrad)
    return run


def execute(roots: list[Any], grad_outputs: Any, retain_graph: bool | None,
            create_graph: bool, inputs: Sequence[Any] | None, accumulate_grads: bool) -> list[Any]:
    """Run the backward pass; return what arrived at ``inputs`` (for ``grad``).

    Nodes run newest first (a heap on their creation order, ``graph.stamp``): every node
    feeding a node was made after it, so each runs once all its cotangents have arrived,
    and only nodes a cotangent reaches are visited at all. Cotangents wait in ``buffers``:
    the array itself for a one-output node, a list per output otherwise.
    """
    if retain_graph is None:
        retain_graph = create_graph
    if (grad_outputs is None and inputs is None and not create_graph and len(roots) == 1
            and not ANOMALY.enabled):
        root = roots[0]
        node = root._grad_fn
        # ``loss.backward()``: one non-view result of one element (what _seed checks, and
        # its implicit cotangent), straight to the common walk
        if (node is not None and root._base is None and node.num_outputs == 1
                and type(root) is tensor_type() and root._data.size == 1):
            _backward_one(node, root._data, retain_graph)
            return []
    seeds = _seed(roots, _as_list(grad_outputs), create_graph)
    root_edges = [grad_edge(r) for r in roots]
    captures: dict[Node, list[tuple[int, int]]] = {}
    input_edges: list[Edge] = []
    for k, t in enumerate(inputs or ()):
        edge = grad_edge(t)
        input_edges.append(edge)
        captures.setdefault(edge[0], []).append((edge[1], k))
    root_nodes = [n for n, _ in root_edges]
    run = None
    if inputs is not None:
        order = _topological_order(root_nodes, _dependencies(root_nodes))
        run = _runnable(order, set(captures), accumulate_grads)
    captured: list[Any] = [None] * len(input_edges)
    buffers: dict[Node, Any] = {}
    heap: list[tuple[int, Node]] = []
    for (node, nr), g in zip(root_edges, seeds):  # the seeds, summed per root
        if node.num_outputs == 1:
            old = buffers.get(node)
            buffers[node] = g if old is None else old + g
        else:
            old = buffers.get(node)
            if old is None:
                buffers[node] = [None] * node.num_outputs
            buf = buffers[node]
            buf[nr] = g if buf[nr] is None else buf[nr] + g
        if old is None:
            heappush(heap, (node._order, node))
    previous_mode = STATE.enabled
    STATE.enabled = create_graph
    # like PyTorch: inf/nan in gradients are not warnings (one context variable set; an
    # np.errstate costs as much as a few nodes)
    token = quiet(IGNORE)
    anomaly = ANOMALY.enabled
    plain = run is None and not captures and not anomaly  # the common backward pass
    fast = plain and not create_graph  # written-out backwards (specialize) may run
    state = _Walk()
    try:
        if fast:
            _walk_fast(state, buffers, heap, retain_graph)
        else:
            _walk(state, buffers, heap, retain_graph, create_graph, plain, run, captures,
                  captured, accumulate_grads, anomaly)
    except (ValueError, IndexError, ArithmeticError) as e:  # a rule's VJP failed
        _raise_rule_failure(state, e)
    finally:
        restore(token)
        STATE.enabled = previous_mode
    if accumulate_grads and inputs is not None:
        for t, (node, _), g in zip(inputs, input_edges, captured):
            if g is not None and type(node) is not AccumulateGrad:
                accumulate(t, g, create_graph)
    return captured


def _raise_rule_failure(state: _Walk, e: Exception) -> None:
    """A rule's VJP raised ``e`` in the walk: a RuntimeError naming its node (any other
    node's error goes on as it is)."""
    node = state.node
    if not isinstance(node, RuleNode):
        raise e
    raise RuntimeError(f"the backward of {node.name()} (rule {node._plan.rule.name!r}) "
                       f"failed: {e}") from e


def _backward_one(node: Node, data: np.ndarray, retain_graph: bool) -> None:
    """:func:`execute`'s common case: the implicit cotangent 1 of a one-element result whose
    node has one output, through :func:`_walk_fast` (the same steps, without the lists)."""
    g = np.empty(data.shape, data.dtype)
    g.fill(1)
    previous_mode = STATE.enabled
    STATE.enabled = False
    token = quiet(IGNORE)
    state = _Walk()
    try:
        _walk_fast(state, {node: g}, [(node._order, node)], retain_graph)
    except (ValueError, IndexError, ArithmeticError) as e:  # a rule's VJP failed
        _raise_rule_failure(state, e)
    finally:
        restore(token)
        STATE.enabled = previous_mode


class _Walk:
    """The node a walk is running (for the engine's error message)."""

    __slots__ = ("node",)

    def __init__(self) -> None:
        self.node: Any = None


def _walk_fast(state: _Walk, buffers: dict[Node, Any], heap: list[tuple[int, Node]],
               retain_graph: bool) -> None:
    """The common backward pass (no ``create_graph``, ``inputs``, anomaly mode): written-out
    backwards where the node has one, a leaf's ``AccumulateGrad`` written out (its
    ``apply`` without the lists), hooks and the rest through :func:`_run_in_full`.

    A written-out backward hands its cotangents on itself and may hold back the first
    child it made pending, when no node made after it waits on the heap: that child runs
    next (so a chain of operations never touches the heap)."""
    pop = buffers.pop
    node: Any = None
    try:
        while heap:
            node = heappop(heap)[1]
            while node is not None:  # (a chain of held-back children, then the heap)
                buf = pop(node)
                if not node._special:
                    plan = node._plan  # a RuleNode (one output): its backward may be written
                    if plan is not None and (written := plan.backward) is not None:
                        done = written(node, buf, retain_graph, buffers, heap)
                        if done is not None:
                            # the child it held back runs next (it checked that nothing
                            # newer waits on the heap); True: none held back
                            node = None if done is True else done
                            continue
                    if type(node) is AccumulateGrad:  # a leaf's sink: AccumulateGrad.apply
                        var = node.variable
                        if buf is not None:
                            accumulate(var, run_tensor_hooks(var._hooks, buf, False)
                                       if var._hooks else buf, False)
                        break
                    outs = node.apply([buf] if node.num_outputs == 1 else buf, False)
                    if not retain_graph:
                        node.release()
                else:
                    outs = _run_in_full(node, [buf] if node.num_outputs == 1 else buf, False,
                                        retain_graph, None, {}, [], True, False)
                for (child, nr), g in zip(node.next_functions, outs):
                    if g is not None and child is not None:
                        deliver(buffers, heap, node, child, nr, g)
                break
    finally:
        state.node = node


def _walk(state: _Walk, buffers: dict[Node, Any], heap: list[tuple[int, Node]],
          retain_graph: bool, create_graph: bool, plain: bool, run: set[Node] | None,
          captures: dict[Node, list[tuple[int, int]]], captured: list[Any],
          accumulate_grads: bool, anomaly: bool) -> None:
    """Every other pass: each node through its ``apply`` (or :func:`_run_in_full`)."""
    pop = buffers.pop
    node: Any = None
    try:
        while heap:
            node = heappop(heap)[1]
            buf = pop(node)
            if plain and not node._special:
                outs = node.apply([buf] if node.num_outputs == 1 else buf, create_graph)
                if not retain_graph:
                    node.release()
            else:
                outs = _run_in_full(node, [buf] if node.num_outputs == 1 else buf,
                                    create_graph, retain_graph, run, captures, captured,
                                    accumulate_grads, anomaly)
            for (child, nr), g in zip(node.next_functions, outs):
                if g is not None and child is not None:
                    deliver(buffers, heap, node, child, nr, g)
    finally:
        state.node = node


def _run_in_full(node: Node, buf: list[Any], create_graph: bool, retain_graph: bool,
                 run: set[Node] | None, captures: dict[Node, list[tuple[int, int]]],
                 captured: list[Any], accumulate_grads: bool, anomaly: bool) -> Any:
    """One node when something is special: its hooks, an input to capture (``grad``), a
    subgraph to skip, anomaly mode. Returns its outputs (None for each edge if skipped)."""
    special = node._special
    if special:
        buf = _pre_hooks(node, buf, create_graph)
    if captures and node in captures:
        _capture(node, buf, captures[node], captured, accumulate_grads, create_graph)
    if run is not None and node not in run:
        return _NOTHING * len(node.next_functions)
    if special or anomaly:
        outs = _run_special(node, buf, create_graph)
    else:
        outs = node.apply(buf, create_graph)
    if not retain_graph:
        node.release()
    return outs


def _capture(node: Node, buf: list[Any], slots: list[tuple[int, int]], captured: list[Any],
             accumulate_grads: bool, create_graph: bool) -> None:
    """Keep what arrived at a requested input (after its tensor hooks)."""
    for nr, k in slots:
        g = buf[nr]
        if type(node) is AccumulateGrad and not accumulate_grads:
            g = run_tensor_hooks(node.variable._hooks, g, create_graph)
        captured[k] = g if captured[k] is None or g is None else captured[k] + g
