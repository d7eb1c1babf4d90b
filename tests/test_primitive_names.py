"""Every primitive name used outside ``srcgrad/rules/`` names a record (DESIGN.md
principle 1): a typo, or a rule renamed in the table, fails here instead of silently
never matching (an optimisation that stops firing, a view check that misses a view).

The modules are read with ``ast``; a string is a primitive name where the code uses it
as one:

- compared with an op's primitive (``op.prim == "x"``, ``op.prim in ("x", "y")``,
  ``op.prim in NAMES`` with ``NAMES`` a tuple/set of strings defined in some module) or
  with a rule's name (``rule.name == "x"``);
- passed as the name to a lookup or an op constructor (``rule_named("x")``,
  ``calls.rule("x")``, ``RULES["x"]``, ``RULES.get("x")``, ``STRUCTURAL["x"]``,
  ``Op("x", ...)``, ``builder.emit("x", ...)``, the runtime's ``_ew("x")``,
  ``_unary_spec("x")``, ``_binop("x", ...)``, ``_table_method("x")``).

Such a name must be a rule of the shared table, a structural (compiler-only) rule, or
one of the IR's own operations (``srcgrad.compiler.ir.core.IR_OPS``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from srcgrad.compiler.ir.core import IR_OPS
from srcgrad.compiler.structural import STRUCTURAL
from srcgrad.rules import RULES

ROOT = Path(__file__).resolve().parents[1] / "srcgrad"
MODULES = sorted(p for p in ROOT.rglob("*.py") if "rules" not in p.relative_to(ROOT).parts)

# callables whose first argument is a primitive's name
LOOKUPS = frozenset({"rule_named", "rule", "Op", "emit", "_ew", "_unary_spec", "_binop",
                     "_table_method"})
TABLES = frozenset({"RULES", "STRUCTURAL"})


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _strings(node: ast.AST) -> Iterator[str]:
    for c in ast.walk(node):
        if isinstance(c, ast.Constant) and isinstance(c.value, str):
            yield c.value


def string_collections(trees: list[ast.Module]) -> dict[str, set[str]]:
    """Module-level ``NAME = (...)`` / ``{...}`` / ``frozenset({...})`` of strings."""
    found: dict[str, set[str]] = {}
    for tree in trees:
        for node in tree.body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(
                node.targets) == 1 else getattr(node, "target", None)
            value = getattr(node, "value", None)
            if not isinstance(target, ast.Name) or value is None:
                continue
            if isinstance(value, ast.Call) and _name_of(value.func) in ("frozenset", "set",
                                                                         "tuple"):
                value = value.args[0] if value.args else value
            if isinstance(value, (ast.Tuple, ast.Set, ast.List)) and value.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str)
                    for e in value.elts):
                found.setdefault(target.id, set()).update(e.value for e in value.elts)
    return found


def primitive_names(tree: ast.Module, collections: dict[str, set[str]]) -> Iterator[
        tuple[str, int]]:
    """(name, line) of every string ``tree`` uses as a primitive's name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            by_prim = any(isinstance(s, ast.Attribute) and s.attr == "prim" for s in sides)
            by_rule = any(isinstance(s, ast.Attribute) and s.attr == "name"
                          and ("rule" in ast.unparse(s.value) or ast.unparse(s.value) == "r")
                          for s in sides)
            if by_prim or by_rule:
                for s in sides:
                    if isinstance(s, ast.Attribute) and s.attr in ("prim", "name"):
                        continue
                    for text in _strings(s):
                        yield text, node.lineno
                    named = _name_of(s)
                    if named in collections:
                        for text in sorted(collections[named]):
                            yield text, node.lineno
        elif isinstance(node, ast.Call):
            func = _name_of(node.func)
            if func in LOOKUPS and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                yield node.args[0].value, node.lineno
            if func == "get" and _name_of(getattr(node.func, "value", None)) in TABLES \
                    and node.args and isinstance(node.args[0], ast.Constant):
                yield node.args[0].value, node.lineno
        elif isinstance(node, ast.Subscript) and _name_of(node.value) in TABLES \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            yield node.slice.value, node.lineno


KNOWN = set(RULES) | set(STRUCTURAL) | IR_OPS


def _parsed() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(), str(p))) for p in MODULES]


def test_every_primitive_name_outside_rules_names_a_record():
    parsed = _parsed()
    collections = string_collections([t for _, t in parsed])
    unknown = [f"{p.relative_to(ROOT.parent)}:{line}: {name!r}"
               for p, tree in parsed for name, line in primitive_names(tree, collections)
               if name not in KNOWN]
    assert not unknown, ("primitive names that no rule record (nor the IR, IR_OPS) defines:\n"
                         + "\n".join(unknown))


def test_the_scan_sees_the_names_the_compiler_and_runtime_use():
    # guards the scanner itself: these uses exist today (emit, passes, runtime methods)
    parsed = _parsed()
    collections = string_collections([t for _, t in parsed])
    seen = {name for _, tree in parsed for name, _ in primitive_names(tree, collections)}
    assert {"const", "getitem", "setitem", "add", "multiply", "tape_push", "zeros_of",
            "sign", "equal"} <= seen


@pytest.mark.parametrize("source", [
    'if op.prim == "mulitply": pass',
    'ok = op.prim in ("add", "subtarct")',
    'r = rule_named("sine")',
    'r = RULES["cosine"]',
    'r = STRUCTURAL.get("seed_two")',
    'op = Op("tape_peek", {})',
    'NAMES = frozenset({"exp", "expo"})\nok = v.op.prim in NAMES',
    'ok = spec.rule.name == "relu6"',
])
def test_a_misspelt_primitive_name_is_reported(source):
    tree = ast.parse(source)
    names = {n for n, _ in primitive_names(tree, string_collections([tree]))}
    assert names - KNOWN, f"the scan missed the unknown name in {source!r}"
