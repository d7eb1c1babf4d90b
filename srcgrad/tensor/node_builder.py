"""Per-call-form node builders: the hot path of recording, specialised once.

Recording an operation creates its backward node: edges to the inputs' histories, the
values the rule's VJPs ask for (with the inputs' versions), and where a cotangent must be
unbroadcast. :func:`..ops.attach` does this generically, looping over the ``Plan``; that
loop costs about as much as the operation itself. Since a plan is fixed per call form,
:func:`compile_builder` writes the loop out once as a small straight-line Python function
(the way ``dataclasses`` writes ``__init__``) and caches it on the ``Spec``. Every builder
is equivalent to ``attach``'s generic path, which stays the reference (and handles the
variadic inputs of ``cat``/``stack``); ``tests/runtime`` run both.

Generated source for ``x * y`` with both requiring grad reads::

    def build(inputs, sources, arrays, result, params):
        node = new(cls)
        s = sources[0]; f = s._grad_fn
        e0 = (f, s._output_nr) if f is not None and s._base is None else edge(s)
        ...
        node.next_functions = (e0, e1)
        v0 = inputs[0]; v1 = inputs[1]
        node._saved = {'y': v1, 'x': v0}
        node._versions = (('y', v1._vc[0]), ('x', v0._vc[0]))
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Builder = Callable[..., Any]


def compile_builder(plan: Any, node_cls: type, tensors: tuple[bool, ...],
                    helpers: dict[str, Any]) -> Builder | None:
    """A straight-line builder for ``plan``, or None where the generic path must run.

    ``tensors[i]`` says whether input ``i`` is a Tensor in this call form; ``helpers``
    provides ``edge``, ``targets``, ``with_defaults``, ``forward_trace``, ``ANOMALY``,
    ``NO_EDGE``.
    """
    if plan.variadic is not None or not plan.wrt:
        return None
    lines = ["def build(inputs, sources, arrays, result, params):", "    node = new(cls)"]
    slots = ["NO_EDGE"] * plan.arity
    for i, slot in plan.edge_slots:
        lines.append(f"    s = sources[{i}]; f = s._grad_fn")
        lines.append(f"    e{slot} = (f, s._output_nr) if f is not None and s._base is None "
                     f"else edge(s)")
        slots[slot] = f"e{slot}"
    lines.append(f"    node.next_functions = ({', '.join(slots)}{',' if len(slots) == 1 else ''})")
    lines.append("    out = result._data")
    saved, versions = [], []
    for i, name in plan.save_inputs:
        lines.append(f"    v{i} = inputs[{i}]")
        saved.append(f"{name!r}: v{i}")
        if tensors[i]:
            versions.append(f"({name!r}, v{i}._vc[0])")
    for i, name in plan.save_shapes:
        saved.append(f"{name!r}: arrays[{i}].shape")
    for i, name in plan.save_dtypes:
        saved.append(f"{name!r}: arrays[{i}].dtype")
    if plan.save_params:
        lines.append("    p = with_defaults(rule, params or {})")
        saved.extend(f"{name!r}: p[{name!r}]" for name in plan.save_params)
    if plan.save_out:
        saved.append("'out': (out, result._vc, result._vc[0])")
    lines.append(f"    node._saved = {{{', '.join(saved)}}}")
    lines.append(f"    node._versions = ({', '.join(versions)}{',' if len(versions) == 1 else ''})")
    checks = []
    for i, _name, _slot in plan.wrt:
        checks.append(f"arrays[{i}].dtype is not od")
        if plan.broadcasts:
            checks.append(f"arrays[{i}].size != out.size or arrays[{i}].ndim != out.ndim")
    lines.append("    od = out.dtype")
    lines.append(f"    node._targets = targets(plan, arrays, out) if ({' or '.join(checks)}) "
                 f"else None")
    lines.append("    node._plan = plan")
    lines.append("    if ANOMALY.enabled:")
    lines.append("        node._trace = forward_trace()")
    lines.append("        node._special = True")
    lines.append("    result._grad_fn = node")
    lines.append("    result._rg = True")
    lines.append("    return node")
    namespace = {**helpers, "new": object.__new__, "cls": node_cls, "plan": plan,
                 "rule": plan.rule}
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<srcgrad node builder {node_cls.__name__}>", "exec"), namespace)
    build = namespace["build"]
    build.__srcgrad_source__ = source
    return build
