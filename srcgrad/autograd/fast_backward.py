"""Per-plan backward functions: ``RuleNode.apply`` written out once per call form.

The generic ``RuleNode.apply`` builds an environment dict of everything the node saved
and calls each VJP through the names it asks for. For a plan (one call form, one set of
inputs needing grad) those names and where they come from are fixed, so
:func:`compile_backward` writes that lookup out as straight-line code, the way
``dataclasses`` writes ``__init__``. It calls the very same ``rule.vjp`` functions (the
table's rules) and falls back to the generic path for anything unusual: a version
mismatch (to raise PyTorch's error), freed saved values, ``create_graph``. For
``x * y`` with both requiring grad it reads::

    def backward(node, g):
        saved = node._saved
        if saved is None:
            return None
        vs = node._versions
        x = saved['x']; y = saved['y']
        if y._vc[0] != vs[0][1] or x._vc[0] != vs[1][1]:
            return None
        r = [None, None]
        r[0] = vjp0(g, y._data)
        r[1] = vjp1(g, x._data)
        t = node._targets
        if t is not None:
            ...
        return r

``None`` from the function means "use the generic path".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FastBackward = Callable[[Any, Any], Any]


def compile_backward(plan: Any, fit: Callable[[Any, Any], Any]) -> FastBackward | None:
    """The straight-line backward of ``plan``, or None where only the generic one fits."""
    if plan.variadic is not None or plan.rule.user or not plan.calls:
        return None
    saved_inputs = {name for _, name in plan.save_inputs}
    lines = ["def backward(node, g):", "    saved = node._saved", "    if saved is None:",
             "        return None"]
    # The saved inputs that are Tensors (in the order their versions were recorded).
    tensor_names = [name for i, name in plan.save_inputs if plan.tensors[i]]
    if tensor_names:
        lines.append("    vs = node._versions")
        for name in tensor_names:
            lines.append(f"    {name} = saved[{name!r}]")
        checks = " or ".join(f"{n}._vc[0] != vs[{k}][1]" for k, n in enumerate(tensor_names))
        lines.append(f"    if {checks}:")
        lines.append("        return None")
    if plan.save_out:
        lines.append("    out, counter, version = saved['out']")
        lines.append("    if counter[0] != version:")
        lines.append("        return None")

    def value(n: str) -> str:
        if n == "g":
            return "g"
        if n == "out":
            return "out"
        if n in tensor_names:
            return f"{n}._data"
        if n in saved_inputs or n.endswith(("_shape", "_dtype")) or n in plan.rule.params:
            return f"saved[{n!r}]"
        raise KeyError(n)

    namespace: dict[str, Any] = {"fit": fit}
    lines.append(f"    r = [None] * {plan.arity}")
    for k, fn, needs, slot, _variadic, _positional in plan.calls:
        namespace[f"vjp{k}"] = fn
        try:
            args = ", ".join(value(n) for n in needs)
        except KeyError:
            return None
        lines.append(f"    r[{slot}] = vjp{k}({args})")
    lines.append("    t = node._targets")
    lines.append("    if t is not None:")
    for k, _fn, _needs, slot, _variadic, _positional in plan.calls:
        lines.append(f"        if t[{k}] is not None:")
        lines.append(f"            r[{slot}] = fit(r[{slot}], t[{k}])")
    lines.append("    return r")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<srcgrad backward {plan.rule.name}>", "exec"), namespace)
    backward = namespace["backward"]
    backward.__srcgrad_source__ = source
    return backward
