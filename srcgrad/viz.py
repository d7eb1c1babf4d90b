"""``sg.viz.make_dot``: the graph behind a tensor as Graphviz DOT text (like torchviz).

One box per backward node, named as PyTorch names it; leaves (``AccumulateGrad``) as
light-blue boxes with their shape and, when ``params`` names them, their name; the output
tensor as a green box. The result is a ``str`` (the DOT source) with ``.source``,
``.render(path, format="svg")`` (runs the ``dot`` program) and ``_repr_svg_`` for
notebooks.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from .autograd.graph import AccumulateGrad
from .tensor import Tensor


class Digraph(str):
    """DOT text that can render itself with Graphviz's ``dot``."""

    @property
    def source(self) -> str:
        return str(self)

    def pipe(self, format: str = "svg") -> bytes:  # noqa: A002 (graphviz's name)
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError("rendering needs Graphviz's `dot` program on PATH (install "
                               "graphviz); the DOT text itself is this string")
        done = subprocess.run([dot, f"-T{format}"], input=str(self).encode(),
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def render(self, path: str, format: str = "svg") -> str:  # noqa: A002
        """Write ``path.<format>`` (and ``path``, the DOT source); return the image path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(self))
        out = f"{path}.{format}"
        with open(out, "wb") as f:
            f.write(self.pipe(format))
        return out

    def _repr_svg_(self) -> str:
        return self.pipe("svg").decode()


def _shape(data: Any) -> str:
    return "(" + ", ".join(str(n) for n in data.shape) + ")"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def make_dot(var: Any, params: dict[str, Any] | None = None, show_attrs: bool = False,
             show_saved: bool = False, max_attr_chars: int = 50) -> Digraph:
    """The DOT graph of the backward nodes that produced ``var`` (a Tensor or tuple)."""
    names = {id(t): name for name, t in (params or {}).items()}
    roots = list(var) if isinstance(var, (tuple, list)) else [var]
    lines = ["digraph {", '\tgraph [size="12,12"]',
             '\tnode [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 '
             'shape=box style=filled]']
    seen: set[int] = set()
    stack = []
    for root in roots:
        if not isinstance(root, Tensor):
            raise TypeError(f"make_dot expects Tensors, got {type(root).__name__}")
        rid = f"t{id(root)}"
        lines.append(f"\t{rid} [label={_quote(_shape(root._data))} fillcolor=darkolivegreen1]")
        if root.grad_fn is not None:
            lines.append(f"\tn{id(root.grad_fn)} -> {rid}")
            stack.append(root.grad_fn)
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if isinstance(fn, AccumulateGrad):
            leaf = fn.variable
            name = names.get(id(leaf), "")
            label = f"{name}\n {_shape(leaf._data)}" if name else _shape(leaf._data)
            lines.append(f"\tn{id(fn)} [label={_quote(label)} fillcolor=lightblue]")
        else:
            label = type(fn).__name__
            if show_attrs or show_saved:
                for key, value in fn.saved_values().items():
                    text = _describe(value)[:max_attr_chars]
                    label += f"\n{key}: {text}"
            lines.append(f"\tn{id(fn)} [label={_quote(label)} fillcolor=lightgrey]")
        for child, _ in fn.next_functions:
            if child is None:
                continue
            lines.append(f"\tn{id(child)} -> n{id(fn)}")
            stack.append(child)
    lines.append("}")
    return Digraph("\n".join(lines) + "\n")


def _describe(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"tensor {_shape(value._data)}"
    if isinstance(value, tuple) and len(value) == 3 and hasattr(value[0], "shape"):
        return f"result {_shape(value[0])}"  # a saved output: (data, counter, version)
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"array {_shape(value)}"
    return repr(value)
