"""Layers import downward only (DESIGN.md principle 8), read from every module's imports.

``srcgrad.rules`` imports numpy, the standard library and itself; the compiler never
imports the runtime (``srcgrad.tensor``, ``srcgrad.autograd``) and the runtime never
imports the compiler. Imports inside functions count too: a lazy import is still a
dependency.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "srcgrad"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            # ``from . import x`` may import submodule x
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
    return found


MODULES = sorted(ROOT.rglob("*.py"))


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _is_ours(name: str) -> bool:
    return name == "srcgrad" or name.startswith("srcgrad.")


def _top(name: str) -> str:
    return name.split(".")[0]


def violations(path: Path) -> list[str]:
    me = module_name(path)
    layer = _layer(me)
    bad = []
    for imported in sorted(imports_of(path)):
        if _is_ours(imported):
            target = _layer(imported)
            if target == "":  # ``from srcgrad import x`` style: resolve through the name
                continue
            if layer == "rules" and target != "rules":
                bad.append(f"{me} (rules) imports {imported}")
            elif layer == "compiler" and target in ("tensor", "autograd"):
                bad.append(f"{me} (compiler) imports the runtime: {imported}")
            elif layer in ("tensor", "autograd") and target == "compiler":
                bad.append(f"{me} (runtime) imports the compiler: {imported}")
            elif layer == "errors" and target != "errors":
                bad.append(f"{me} (errors) imports {imported}")
        elif layer == "rules" and _top(imported) not in STDLIB | {"numpy"}:
            bad.append(f"{me} (rules) imports third-party {imported}")
    return bad


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_module_imports_respect_the_layers(path):
    assert not violations(path)


def test_the_lower_layers_do_not_import_the_package_top():
    """``from srcgrad import x`` inside rules/compiler/runtime would import every layer."""
    bad = []
    for path in MODULES:
        me = module_name(path)
        if _layer(me) in ("rules", "errors", "compiler", "tensor", "autograd"):
            if "srcgrad" in imports_of(path) or any(
                    i.startswith("srcgrad.") and _layer(i) in ("cli", "viz", "__main__")
                    for i in imports_of(path)):
                bad.append(me)
    assert not bad, f"modules importing the top of the package: {bad}"


def test_the_checker_sees_a_violation(tmp_path, monkeypatch):
    fake_root = tmp_path / "srcgrad"
    (fake_root / "rules").mkdir(parents=True)
    bad = fake_root / "rules" / "bad.py"
    bad.write_text("from ..tensor import Tensor\nimport gast\nfrom . import registry\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    found = violations(bad)
    assert any("srcgrad.tensor" in v for v in found) and any("gast" in v for v in found)
    assert not any("registry" in v for v in found)


# --- the runtime's two layers: autograd strictly below tensor ------------------------

def _runtime_imports() -> dict[str, set[str]]:
    """Every runtime module and the runtime modules it imports (lazy imports included)."""
    graph = {}
    for path in MODULES:
        me = module_name(path)
        if _layer(me) in ("tensor", "autograd"):
            graph[me] = {i for i in imports_of(path) if _layer(i) in ("tensor", "autograd")}
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{me} imports {i}" for me, found in graph.items()
                  if _layer(me) == "autograd" for i in found if _layer(i) == "tensor")


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of module imports (as a path), or None; ``from . import x`` edges to names
    that are not modules are dropped."""
    edges = {me: {i for i in found if i in graph and i != me} for me, found in graph.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in edges:
        if state.get(start):
            continue
        path = [start]
        stack = [iter(sorted(edges[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(edges[nxt])))
    return None


def test_autograd_never_imports_the_tensor_layer():
    """Nodes, engine, grad mode, anomaly and Function sit below ``srcgrad.tensor``: the
    tensor layer lends autograd what it needs at import (``autograd.bindings``)."""
    assert upward_imports(_runtime_imports()) == []


def test_autograd_has_no_import_cycle():
    """autograd's modules import each other downward only, lazily or not (with no import
    of the tensor layer, no cycle can pass through it either). A package ``__init__``
    importing its own modules to re-export them is the package itself; a module importing
    its package back would be the cycle."""
    graph = {me: {i for i in found if _layer(i) == "autograd" and not i.startswith(me + ".")}
             for me, found in _runtime_imports().items() if _layer(me) == "autograd"}
    assert import_cycle(graph) is None


def test_the_runtime_checks_see_an_upward_import_and_a_cycle():
    fake = {"srcgrad.autograd.engine": {"srcgrad.tensor.tensor"},
            "srcgrad.tensor.tensor": {"srcgrad.tensor.ops"},
            "srcgrad.tensor.ops": {"srcgrad.tensor.tensor"}}
    assert upward_imports(fake) == ["srcgrad.autograd.engine imports srcgrad.tensor.tensor"]
    assert import_cycle(fake) in (["srcgrad.tensor.ops", "srcgrad.tensor.tensor",
                                   "srcgrad.tensor.ops"],
                                  ["srcgrad.tensor.tensor", "srcgrad.tensor.ops",
                                   "srcgrad.tensor.tensor"])
    assert import_cycle({"srcgrad.tensor.a": {"srcgrad.tensor.b"},
                         "srcgrad.tensor.b": set()}) is None


def test_a_function_local_import_of_the_tensor_layer_counts(tmp_path, monkeypatch):
    fake_root = tmp_path / "srcgrad"
    (fake_root / "autograd").mkdir(parents=True)
    lazy = fake_root / "autograd" / "engine.py"
    lazy.write_text("def f():\n    from ..tensor.tensor import Tensor\n    return Tensor\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    graph = {module_name(lazy): set(imports_of(lazy))}
    assert "srcgrad.autograd.engine imports srcgrad.tensor.tensor" in upward_imports(graph)
