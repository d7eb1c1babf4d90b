"""Compile emitted module text once and register it in ``linecache``.

Each module gets a unique file name (``<srcgrad:grad_f:3>``) whose text ``linecache``
serves, so tracebacks through emitted code show its lines and ``inspect.getsource`` works
on the derived functions (and ``sg.grad`` could parse them again).
"""

from __future__ import annotations

import itertools
import linecache
from typing import Any

_counter = itertools.count(1)


def compile_module(text: str, namespace: dict[str, Any], label: str) -> dict[str, Any]:
    """Execute ``text`` in a copy of ``namespace``; returns the module namespace."""
    module_ns = dict(namespace)
    module_ns["__name__"] = f"srcgrad_emitted_{label}"
    compile_into(text, module_ns, label)
    return module_ns


def compile_into(text: str, namespace: dict[str, Any], label: str) -> str:
    """Execute ``text`` in ``namespace`` itself; returns the file name it is known by."""
    filename = f"<srcgrad:{label}:{next(_counter)}>"
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    exec(compile(text, filename, "exec"), namespace)
    namespace["__srcgrad_filename__"] = filename
    return filename
