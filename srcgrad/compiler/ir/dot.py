"""Draw an IR :class:`Function` as Graphviz DOT text (``srcgrad show --graph``).

A reader of the IR, beside :mod:`.printer`: one box per op labelled with its primitive and,
when the value it defines has one, the user's variable name (an adjoint is named ``d`` +
the primal's name, as the emitted code names it); parameters are ellipses; constants are
small plain-text nodes; edges carry data from a definition to each use, labelled with the
argument's name. Each region of a control-flow op is a cluster holding its block
parameters, its ops and a ``yield`` node for its results; the function's results flow into
a ``return`` node. Node names are numbered in order of definition, so the text depends
only on the IR, never on global ids or dict order of anything but the IR itself.
"""

from __future__ import annotations

from typing import Any

from .core import Block, Function, Op, Value


def to_dot(fn: Function) -> str:
    """The DOT text of ``fn``'s dataflow graph (deterministic for a given IR)."""
    drawing = _Drawing()
    lines = [f"digraph {_quote(fn.name)} {{",
             f"  label={_quote(f'{fn.name} ({fn.filename}:{fn.firstlineno})')};",
             "  labelloc=t;",
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=9];']
    for param in fn.params:
        node = drawing.define_value(param)
        lines.append(f"  {node} [shape=ellipse, label={_quote(value_label(param))}];")
    drawing.block(fn.body, lines, "  ", "return")
    lines.append("}")
    return "\n".join(lines) + "\n"


def value_label(v: Value) -> str:
    """The user's name for ``v``: its own, or ``d<name>`` for an adjoint; else ''."""
    if v.name:
        return v.name
    if v.adjoint_of is not None and v.adjoint_of.name:
        return "d" + v.adjoint_of.name
    return ""


class _Drawing:
    """Node numbering and the value -> node map while one function is drawn."""

    def __init__(self) -> None:
        self.count = 0
        self.clusters = 0
        self.node_of: dict[Value, str] = {}  # value -> the node that defines it
        self.port_of: dict[Value, str] = {}  # value -> edge-label prefix (multi-output ops)

    def new_node(self) -> str:
        name = f"n{self.count}"
        self.count += 1
        return name

    def define_value(self, v: Value) -> str:
        node = self.new_node()
        self.node_of[v] = node
        return node

    def block(self, block: Block, lines: list[str], indent: str, end: str) -> str:
        """Draw ``block``'s ops and a sink node named ``end`` for its results: the sink."""
        for op in block.ops:
            if op.prim != "const":
                self.op(op, lines, indent)
        sink = self.new_node()
        lines.append(f"{indent}{sink} [shape=doublecircle, label={_quote(end)}, "
                     "fontsize=9];")
        for i, result in enumerate(block.results):
            label = str(i) if len(block.results) > 1 else ""
            self.edge(result, sink, label, lines, indent)
        return sink

    def op(self, op: Op, lines: list[str], indent: str) -> None:
        node = self.new_node()
        names = [value_label(v) for v in op.outputs]
        label = op.prim + (f"\n{', '.join(n for n in names if n)}" if any(names) else "")
        if op.line is not None:
            label += f"\nline {op.line}"
        shape = "box3d" if op.regions else "box"
        lines.append(f"{indent}{node} [shape={shape}, label={_quote(label)}];")
        for arg_name, arg in op.args.items():
            values = arg if isinstance(arg, tuple) else (arg,)
            for i, v in enumerate(values):
                if isinstance(v, Value):
                    suffix = f"[{i}]" if isinstance(arg, tuple) else ""
                    self.edge(v, node, f"{arg_name}{suffix}", lines, indent)
        for i, region in enumerate(op.regions):
            self.region(op, i, region, node, lines, indent)
        for i, v in enumerate(op.outputs):
            self.node_of[v] = node
            if len(op.outputs) > 1:
                self.port_of[v] = f"{i}: "

    def region(self, op: Op, index: int, region: Block, owner: str, lines: list[str],
               indent: str) -> None:
        cluster = f"cluster_{self.clusters}"
        self.clusters += 1
        lines.append(f"{indent}subgraph {cluster} {{")
        inner = indent + "  "
        lines.append(f"{inner}label={_quote(f'{op.prim}: region {index}')};")
        lines.append(f"{inner}style=rounded; color=gray50;")
        for param in region.params:
            node = self.define_value(param)
            lines.append(f"{inner}{node} [shape=ellipse, style=dashed, "
                         f"label={_quote(value_label(param) or 'param')}];")
        yield_node = self.block(region, lines, inner, "yield")
        lines.append(f"{indent}}}")
        lines.append(f"{indent}{yield_node} -> {owner} [style=dashed];")

    def edge(self, v: Value, target: str, label: str, lines: list[str], indent: str) -> None:
        if v.op is not None and v.op.prim == "const":
            source = self.new_node()  # one small node per use keeps constants local
            lines.append(f"{indent}{source} [shape=plaintext, "
                         f"label={_quote(_const_text(v.op.attrs.get('value')))}];")
        else:
            source = self.node_of.get(v) or self._undefined(v, lines, indent)
        text = self.port_of.get(v, "") + label
        attrs = f" [label={_quote(text)}]" if text else ""
        lines.append(f"{indent}{source} -> {target}{attrs};")

    def _undefined(self, v: Value, lines: list[str], indent: str) -> str:
        """A value defined nowhere in this function (a verifier would reject it): drawn
        in red rather than dropped, so the picture shows the broken IR as it is."""
        node = self.define_value(v)
        lines.append(f"{indent}{node} [shape=ellipse, color=red, "
                     f"label={_quote(value_label(v) or '?')}];")
        return node


def _const_text(value: Any) -> str:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}".replace("numpy.", "np.")
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
