"""A plan's record and backward steps written out as straight-line code (the runtime's one
code generator, behind :data:`SPECIALIZE`).

Recording a node (:func:`.rule_node.build_node`) and applying its rule
(``RuleNode.apply``) loop over the plan: which inputs get edges, which values to save,
which VJPs to call with which saved values. For one plan those loops always take the same
turns, and on small tensors they cost as much as the NumPy work itself. So, as
``dataclasses`` writes ``__init__``, :func:`specialize` writes each loop out once per
plan: the builder saves the same values in the same order (one tuple per node, named by
the plan's ``saved_names``), the backward calls the very same ``rule.vjp`` functions
positionally (with the helper primitives they call bound to their implementations:
:func:`direct`) or, when a VJP is one expression of operators and ufuncs, writes that
expression in (:mod:`.inline_vjp`; with its Python numbers as constants of the cotangent's
dtype where the arrays allow, :mod:`.typed_vjp`), and hands each cotangent on as the
engine would (``graph.deliver``, written out for the common case). The backward returns ``None`` for
anything unusual (freed values, an input changed in place: errors the generic path
raises), and ``create_graph``, hooks, anomaly mode, ``autograd.grad``'s pruned walks,
variadic inputs and ``sg.defvjp`` rules take the generic path (``RuleNode.apply``).

It pays on the runtime benchmark (``benchmarks/runtime_overhead.py``: about a third of
the per-op time); the tests run the runtime both ways (``tests/runtime``: switch off, the
generic code alone). For ``x * y`` with both inputs requiring grad the backward reads::

    def backward(node, g, retain, buffers, heap):
        saved = node._saved
        if saved is None:
            return None
        s0, s1, w0, w1 = saved
        if s0._vc[0] != w0 or s1._vc[0] != w1:
            return None
        r0 = (g * s1._data)
        r1 = (g * s0._data)
        t = node._targets
        if t is not None: ...
        if not retain:
            node._saved = None
        (c0, n0), (c1, n1) = node.next_functions
        me = node._order
        nxt = True
        if c0 is not None:
            o = c0._order
            if o > me and type(o) is int:  # (a float order: a node of several outputs)
                old = buffers.get(c0)
                if old is None:
                    buffers[c0] = r0
                    if nxt is True:
                        nxt, on = c0, o  # held back: the engine runs it next
                    else:
                        heappush(heap, (o, c0))
                else:
                    buffers[c0] = old + r0
            else:
                deliver(buffers, heap, node, c0, n0, r0)
        ...  (the same for r1)
        if nxt is not True and heap and heap[0][0] < on:
            heappush(heap, (on, nxt))  # a node made after it waits: it goes on the heap
            return True
        return nxt
"""

from __future__ import annotations

import functools
import heapq
import os
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .inline_vjp import inline
from .typed_vjp import typed_lines

# off: every node records and runs through the generic code (``rule_node.set_specialized``,
# or SRCGRAD_SPECIALIZE=0 in the environment to run a whole test session that way)
SPECIALIZE = os.environ.get("SRCGRAD_SPECIALIZE", "1") != "0"


def specialize(plan: Any, helpers: dict[str, Any]) -> tuple[Callable[..., Any],
                                                             Callable[..., Any],
                                                             Callable[..., Any] | None]:
    """``(build, quick, backward)`` for ``plan``: written out, or the generic ones
    (backward ``None``: ``RuleNode.apply``'s own loop). ``quick(result, *inputs)`` is
    ``build`` for the elementwise fast paths, whose inputs are their own sources and
    whose arrays are the tensors' data (or the inputs themselves): no tuples to pack, and
    whose callers checked that every input's gradient has the result's shape and dtype
    (nothing to unbroadcast or cast back)."""
    generic = functools.partial(helpers["build_node"], plan)
    if not SPECIALIZE or plan.variadic is not None or not plan.wrt:
        tensors = plan.tensors

        def quick(result: Any, *inputs: Any) -> Any:
            arrays = tuple(x._data if t else x for x, t in zip(inputs, tensors))
            return generic(inputs, inputs, arrays, result, None)

        return generic, quick, None
    return (_builder(plan, helpers, False), _builder(plan, helpers, True),
            _backward(plan, helpers))


def _compile(source: str, name: str, label: str, namespace: dict[str, Any]) -> Any:
    exec(compile(source, f"<srcgrad {label}>", "exec"), namespace)
    fn = namespace[name]
    fn.__srcgrad_source__ = source
    return fn


def _builder(plan: Any, helpers: dict[str, Any], quick: bool) -> Callable[..., Any]:
    tensors = plan.tensors
    n = len(tensors)
    if quick:  # inputs are their own sources; arrays are the tensors' data
        inputs = sources = [f"i{i}" for i in range(n)]
        arrays = [f"i{i}._data" if tensors[i] else f"i{i}" for i in range(n)]
        lines = [f"def quick(result, {', '.join(inputs)}):"]
        params, all_arrays = "None", f"({', '.join(arrays)}{',' if n == 1 else ''})"
    else:
        inputs = [f"inputs[{i}]" for i in range(n)]
        sources = [f"sources[{i}]" for i in range(n)]
        arrays = [f"arrays[{i}]" for i in range(n)]
        lines = ["def build(inputs, sources, arrays, result, params):"]
        params, all_arrays = "params", "arrays"
    lines.append("    out = result._data")
    lines.extend(_node_lines(plan, inputs, sources, arrays, params, all_arrays, quick, "",
                             "result._vc", "result._vc[0]"))
    lines.append("    result._grad_fn = node")
    lines.append("    result._rg = True")
    lines.append("    return node")
    namespace = {**helpers, "edge": helpers["RUNTIME"].edge, "cls": plan.node_cls,
                 "plan": plan, "rule": plan.rule, "defaults": plan.defaults}
    name = "quick" if quick else "build"
    fn = _compile("\n".join(lines) + "\n", name,
                  f"node {'quick ' if quick else ''}builder {plan.node_cls.__name__}", namespace)
    if quick:
        fn.__srcgrad_namespace__ = namespace  # (for fused_record)
    return fn


def fused_record(plan: Any, inputs: list[str], tag: str) -> tuple[list[str], dict[str, Any]] | None:
    """The quick builder of ``plan`` written into an elementwise op (``tensor.ops``), so an
    op that records makes one Python call, not two: lines (at 4 spaces) that record a node
    for ``inputs`` (the op's names for its operands: Tensors, or a number's own array),
    whose result's ndarray is ``out``, and end with ``return result``, a new Tensor of class
    ``tensor`` (the op's name for it) holding the node; and the names they read, this
    plan's suffixed with ``tag``. None when the plan's builders are not written out (the
    switch is off, or a variadic plan): the op calls ``plan.quick`` then."""
    namespace = getattr(plan.quick, "__srcgrad_namespace__", None)
    if namespace is None:
        return None
    tensors = plan.tensors
    arrays = [f"{x}._data" if t else x for x, t in zip(inputs, tensors)]
    # (the version counter is made first when the node saves it with the result)
    lines = ["    vc = [0]"] if plan.save_out else []
    lines.extend(_node_lines(plan, inputs, inputs, arrays, "None", "", True, tag, "vc", "0"))
    # every slot of the result (tensor.py), its node among them
    lines.extend(["    result = new(tensor)", "    result._data = out",
                  f"    result._vc = {'vc' if plan.save_out else '[0]'}",
                  "    result._grad_fn = node", "    result._base = result._acc = None",
                  "    result._rg = True", "    result._output_nr = 0", "    return result"])
    names = {k: namespace[k] for k in ("new", "edge", "NO_EDGE", "stamp", "ANOMALY",
                                       "forward_trace")}
    names.update({f"cls{tag}": namespace["cls"], f"plan{tag}": namespace["plan"],
                  f"rule{tag}": namespace["rule"], f"defaults{tag}": namespace["defaults"]})
    return lines, names


def _node_lines(plan: Any, inputs: list[str], sources: list[str], arrays: list[str],
                params: str, all_arrays: str, quick: bool, tag: str, counter: str,
                version: str) -> list[str]:
    """The body (at 4 spaces) recording a node of ``plan`` into ``node``, for the builders
    and :func:`fused_record`: ``out`` is the result's ndarray, ``counter`` and ``version``
    its version counter and version; ``cls``, ``plan``, ``rule`` and ``defaults`` are read
    suffixed with ``tag``."""
    cls_, plan_, rule_, defaults_ = (f"{n}{tag}" for n in ("cls", "plan", "rule", "defaults"))
    # (a node class has no __init__: calling it makes the instance without the argument
    # tuple that object.__new__(cls) builds)
    lines = [f"    node = {cls_}()"]
    slots = ["NO_EDGE"] * plan.arity
    for i, slot in plan.edge_slots:
        # edge() inlined for the common cases: a tensor with history that is not a view,
        # and a leaf whose AccumulateGrad is alive (it needs grad: not a view, so _rg)
        # (an operand's own name is read as it is; ``sources[0]`` once, into ``s``)
        s = sources[i] if sources[i].isidentifier() else "s"
        lines.append(f"    f = {sources[i]}._grad_fn" if s != "s" else
                     f"    s = {sources[i]}; f = s._grad_fn")
        lines.append(f"    if {s}._base is not None:")
        lines.append(f"        e{slot} = edge({s})")
        lines.append("    elif f is not None:")
        lines.append(f"        e{slot} = (f, {s}._output_nr)")
        lines.append(f"    elif (f := {s}._acc) is not None and (f := f()) is not None:")
        lines.append(f"        e{slot} = (f, 0)")
        lines.append("    else:")
        lines.append(f"        e{slot} = edge({s})")
        slots[slot] = f"e{slot}"
    lines.append(f"    node.next_functions = ({', '.join(slots)}{',' if len(slots) == 1 else ''})")
    lines.append("    node._order = stamp()")
    saved, versions = [], []
    for i, name in plan.save_inputs:
        lines.append(f"    v{i} = {inputs[i]}")
        saved.append(f"v{i}")
        if name in plan.versioned:
            versions.append(f"v{i}._vc[0]")
    for i, _name in plan.save_shapes:
        saved.append(f"{arrays[i]}.shape")
    for i, _name in plan.save_dtypes:
        saved.append(f"{arrays[i]}.dtype")
    if plan.save_params:
        lines.append(f"    p = {defaults_}({rule_}, {params} or {{}})")
        saved.extend(f"p[{name!r}]" for name in plan.save_params)
    if plan.save_out:
        saved.append(f"(out, {counter}, {version})")
    # one tuple: the values in the plan's saved_names order, then the tensors' versions
    items = [*saved, *versions]
    lines.append(f"    node._saved = ({', '.join(items)}{',' if len(items) == 1 else ''})")
    if quick:  # its caller saw every input needing grad has the result's shape and dtype
        lines.append("    node._targets = None")
    else:
        checks = []
        for i, _name, _slot in plan.wrt:
            lines.append(f"    a{i} = {arrays[i]}")
            checks.append(f"a{i}.dtype is not od")
            if plan.broadcasts:
                checks.append(f"a{i}.size != out.size or a{i}.ndim != out.ndim")
        lines.append("    od = out.dtype")
        lines.append(f"    node._targets = targets({plan_}, {all_arrays}, out) if "
                     f"({' or '.join(checks)}) else None")
    lines.append(f"    node._plan = {plan_}")
    lines.append("    if ANOMALY.enabled:")
    lines.append("        node._trace = forward_trace()")
    lines.append("        node._special = True")
    return lines


def _backward(plan: Any, helpers: dict[str, Any]) -> Callable[..., Any] | None:
    rule = plan.rule
    calls = [(k, name, slot) for k, (_, name, slot) in enumerate(plan.wrt) if slot is not None]
    if rule.user or not calls:
        return None
    # the node's one tuple unpacked: s<j> per saved value, then w<k> per version of the
    # saved inputs that are Tensors
    names = plan.saved_names
    if len(set(names)) != len(names):
        return None  # (a name saved twice: the generic path's dict semantics)
    local = {n: f"s{j}" for j, n in enumerate(names)}
    tensor_names = list(plan.versioned)
    targets_ = [*local.values(), *(f"w{k}" for k in range(len(tensor_names)))]
    lines = ["def backward(node, g, retain, buffers, heap):"]
    if plan.frees or targets_:  # (``x + y`` saves nothing: nothing to read)
        lines.append("    saved = node._saved")
    if plan.frees:  # (a node saving no tensor never frees its values: nothing to check)
        lines += ["    if saved is None:", "        return None"]
    if targets_:
        lines.append(f"    {', '.join(targets_)}{',' if len(targets_) == 1 else ''} = saved")
    if tensor_names:
        checks = " or ".join(f"{local[n]}._vc[0] != w{k}" for k, n in enumerate(tensor_names))
        lines.append(f"    if {checks}:")
        lines.append("        return None")
    if plan.save_out:
        lines.append(f"    out, counter, version = {local['out']}")
        lines.append("    if counter[0] != version:")
        lines.append("        return None")

    def value(n: str) -> str:
        if n == "g":
            return n
        if n in tensor_names:
            return f"{local[n]}._data"
        if n in local:
            return "out" if n == "out" else local[n]
        raise KeyError(n)

    namespace: dict[str, Any] = {"fit": helpers["fit"], "deliver": helpers["deliver"],
                                 "heappush": heapq.heappush, "np": np}
    expressions: set[int] = set()  # the slots whose VJP was written in
    for k, name, slot in calls:
        try:
            args = [value(n) for n in rule.needs[name]]
        except KeyError:
            return None
        # a VJP that is one expression of operators and ufuncs is written in (no call)
        expr = inline(rule.vjp[name], args)
        if expr is not None:
            expressions.add(slot)
            # its numbers as 0-d arrays when the dtypes allow (typed_vjp)
            typed = typed_lines(plan, rule.vjp[name], args, rule.needs[name], tensor_names,
                                k, f"r{slot}", expr, namespace)
            if typed is not None:
                if "    dt = g.dtype if type(g) is ndarray else None" not in lines:
                    lines.append("    dt = g.dtype if type(g) is ndarray else None")
                    namespace["ndarray"] = np.ndarray
                lines.extend(typed)
                continue
        else:
            fn = rule.vjp[name]
            if all(n in tensor_names or n not in rule.inputs for n in rule.needs[name]):
                fn = direct(fn)  # every array it reads is an ndarray here
            namespace[f"vjp{k}"] = fn
            expr = f"vjp{k}({', '.join(args)})"
        lines.append(f"    r{slot} = {expr}")
    lines.append("    t = node._targets")
    lines.append("    if t is not None:")
    for k, _name, slot in calls:
        lines.append(f"        if t[{k}] is not None:")
        lines.append(f"            r{slot} = fit(r{slot}, t[{k}])")
    if plan.frees:  # the engine's release, done here (without retain_graph)
        lines.append("    if not retain:")
        lines.append("        node._saved = None")
    # the engine's delivery (graph.deliver) written out for a one-output node made before
    # this one; anything else goes through deliver itself
    used = {slot for _k, _name, slot in calls}
    edges = [f"(c{s}, n{s})" if s in used else "_" for s in range(plan.arity)]
    lines.append(f"    {', '.join(edges)}{',' if len(edges) == 1 else ''} = node.next_functions")
    lines.append("    me = node._order")
    # The first child this node makes pending is returned instead of pushed: the engine
    # runs it next unless the heap holds a node made after it (so a chain of operations
    # never touches the heap). ``nxt`` is True while no child was held back.
    lines.append("    nxt = True")
    for j, (_k, _name, slot) in enumerate(calls):
        c = f"c{slot}"
        # an expression of operators never gives None; a called VJP may (no gradient)
        maybe_none = "" if slot in expressions else f" and r{slot} is not None"
        lines.append(f"    if {c} is not None{maybe_none}:")
        lines.append(f"        o = {c}._order")
        # (a node of several outputs has a float order, graph.stamp_several: told apart
        # by type, where reading an attribute of a node of any class is a slow lookup)
        lines.append("        if o > me and type(o) is int:")
        lines.append(f"            old = buffers.get({c})")
        lines.append("            if old is None:")
        lines.append(f"                buffers[{c}] = r{slot}")
        if j == 0:  # nothing was held back before the first edge
            lines.append(f"                nxt, on = {c}, o")
        else:
            lines.append("                if nxt is True:")
            lines.append(f"                    nxt, on = {c}, o")
            lines.append("                else:")
            lines.append(f"                    heappush(heap, (o, {c}))")
        lines.append("            else:")
        lines.append(f"                buffers[{c}] = old + r{slot}")
        lines.append("        else:")
        lines.append(f"            deliver(buffers, heap, node, {c}, n{slot}, r{slot})")
    # the child held back runs next unless a node made after it waits on the heap (the
    # engine's own check, here where its order is at hand)
    lines.append("    if nxt is not True and heap and heap[0][0] < on:")
    lines.append("        heappush(heap, (on, nxt))")
    lines.append("        return True")
    lines.append("    return nxt")
    return _compile("\n".join(lines) + "\n", "backward", f"backward {rule.name}", namespace)


_DIRECT: dict[Any, Any] = {}  # a VJP function -> its direct version (made once per function)


def direct(fn: Any) -> Any:
    """``fn`` with the dispatching helpers it calls (``unreduce``, ``matmul_adjoint_x``...)
    bound to their implementations.

    A helper's wrapper offers the call to Tensor and symbolic arguments (so a VJP run on
    Tensors records, under ``create_graph``); a written-out backward runs only on ndarrays
    (no ``create_graph``, and only for VJPs whose every input is a Tensor's data), where the
    wrapper would just check each argument's type and call the implementation: about as
    long as the NumPy work on small arrays. The function's code is the rule's own; only
    the global names it reads are resolved differently.
    """
    found = _DIRECT.get(fn)
    if found is not None:
        return found
    found = fn
    if type(fn) is types.FunctionType:
        names = fn.__globals__
        swaps = {n: names[n].__srcgrad_impl__ for n in fn.__code__.co_names
                 if n in names and hasattr(names[n], "__srcgrad_impl__")}
        # (a rule made by a factory names its helper through a closure cell)
        cells = fn.__closure__ or ()
        closure = tuple(_direct_cell(c) for c in cells)
        if swaps or closure != cells:
            found = types.FunctionType(fn.__code__, {**names, **swaps} if swaps else names,
                                       fn.__name__, fn.__defaults__, closure or None)
            found.__kwdefaults__ = fn.__kwdefaults__
    _DIRECT[fn] = found
    return found


def _direct_cell(cell: Any) -> Any:
    """A closure cell holding a helper's implementation instead of the helper."""
    try:
        impl = getattr(cell.cell_contents, "__srcgrad_impl__", None)
    except ValueError:  # (an empty cell)
        return cell
    return cell if impl is None else types.CellType(impl)
