"""Write ``docs/supported.md``, the supported-functions page, from the rule table.

Run ``python -m srcgrad.tools.supported`` after adding or changing a rule (``--check``
only compares and exits 1 when the page is stale; ``tests/test_supported_page.py`` does
the same). Everything on the page is read from the rule records (DESIGN.md principle 1):
the NumPy, ``math`` and builtin spellings are the rule's callables as NumPy, ``math`` and
``builtins`` name them; method and attribute spellings, PyTorch spellings, kink notes and
the second-order condition are record fields; the modes follow from the rule's kind and
derivatives. So a new ``defrule`` line appears here without editing this module.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from srcgrad.rules import NONDIFF, RULES, Rule
from srcgrad.rules.multi import MULTI, MultiRule

from .pages import page_main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "supported.md"
COMMAND = "python -m srcgrad.tools.supported"

_NAMESPACES: tuple[tuple[Any, str], ...] = (
    (np, "np."), (np.linalg, "np.linalg."), (np.fft, "np.fft."), (math, "math."),
    (builtins, ""),
)


def _public_names() -> dict[int, list[str]]:
    """id(callable) -> every public name NumPy, ``math`` and ``builtins`` give it."""
    names: dict[int, list[str]] = {}
    for module, prefix in _NAMESPACES:
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            obj = getattr(module, attr, None)
            if callable(obj) and not isinstance(obj, type) and not isinstance(obj, np.dtype):
                names.setdefault(id(obj), []).append(prefix + attr)
    return names


def _spellings(rule: Rule, public: dict[int, list[str]]) -> list[str]:
    seen: list[str] = []
    for fn in (rule.impl, *rule.aliases):
        for name in public.get(id(fn), []):
            if name not in seen:
                seen.append(name)
    return seen


def _code(items: Iterable[str]) -> str:
    return ", ".join(f"`{s}`" for s in items) or ""


def _modes(rule: Rule) -> tuple[str, str, str]:
    """(reverse, forward, second order) as the compiler and runtime offer them."""
    if rule.kind == NONDIFF or not (rule.vjp or rule.jvp):
        return "0", "0", "0"
    reverse = "yes" if rule.vjp else "—"
    forward = "yes" if all(rule.has_forward(n) for n in rule.vjp) and rule.vjp else "—"
    if reverse == "yes" and forward == "yes":
        second = "partly" if rule.second_order else "yes"
    else:
        second = "—"
    return reverse, forward, second


def _notes(rule: Rule) -> str:
    notes = []
    if rule.kinks:
        notes.append(rule.kinks)
    if rule.second_order:
        notes.append("Second order: " + rule.second_order)
    return " ".join(notes).replace("|", "\\|")


def _weakest(modes: Iterable[str]) -> str:
    """One mode for several item rules: a function is as differentiable as its least item
    (a zero-derivative item such as ``slogdet``'s sign does not lower it)."""
    order = ["—", "partly", "yes"]
    real = [m for m in modes if m != "0"]
    return min(real, key=order.index) if real else "0"


def _multi_row(multi: MultiRule) -> list[str]:
    modes = [_modes(RULES[r]) for r in multi.item_rules if r in RULES]
    reverse, forward, second = (_weakest(m[k] for m in modes) for k in range(3))
    notes: dict[str, list[str]] = {}  # one note per text, naming the items it is about
    for r in multi.item_rules:
        if _notes(RULES[r]):
            notes.setdefault(_notes(RULES[r]), []).append(f"`{r}`")
    notes_text = "; ".join(f"{', '.join(items)}: {text}" for text, items in notes.items())
    return [f"`{multi.spelling}({multi.form})`", _code(multi.item_rules), reverse, forward,
            second, notes_text]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)]


def _is_user_facing(rule: Rule, names: list[str]) -> bool:
    return bool(names or rule.methods or rule.attributes or rule.pytorch)


def render() -> str:
    """The page's text for the table as it is now (user rules from sg.defvjp left out)."""
    public = _public_names()
    rules = sorted((r for r in RULES.values() if not r.user and not r.structural),
                   key=lambda r: r.name)
    numpy_rows: list[list[str]] = []
    zero_rows: list[list[str]] = []
    runtime_rows: list[list[str]] = []
    helpers: list[str] = []
    for rule in rules:
        names = _spellings(rule, public)
        np_names = [n for n in names if n.startswith("np.")] or names[:1]
        twins = [n for n in names if n not in np_names]
        methods = [f"x.{m}()" for m in rule.methods] + [f"x.{a}" for a in rule.attributes]
        reverse, forward, second = _modes(rule)
        if not _is_user_facing(rule, names):
            helpers.append(rule.name)
        elif rule.runtime_only:
            runtime_rows.append([_code(rule.pytorch), f"`{rule.name}`", reverse, second,
                                 _notes(rule)])
        elif reverse == "0":
            zero_rows.append([_code(np_names) or f"`{rule.name}`", _code(twins),
                              _code(methods), _code(rule.pytorch)])
        else:
            numpy_rows.append([_code(np_names) or f"`{rule.name}`", _code(twins),
                               _code(methods), _code(rule.pytorch), reverse, forward, second,
                               "yes", _notes(rule)])
    lines = [
        "# Supported functions",
        "",
        f"<!-- Generated from the rule table by `{COMMAND}`; do not edit by hand. -->",
        "",
        f"Generated from srcgrad's rule table (`srcgrad/rules/`) by `{COMMAND}`: run it after "
        "adding or changing a rule (a test fails while this page is stale). Each row is one "
        "rule record; a function not listed here is refused by the compiler (an "
        "`sg.SrcGradError` naming your line) unless you register a rule with `sg.defvjp`.",
        "",
        "Columns: *reverse* is `sg.grad` / `sg.vjp` and the runtime's `backward()`; "
        "*forward* is `sg.jvp` (emitted forward mode); *2nd order* is `sg.hessian`, "
        "`sg.grad(sg.grad(f))` and the runtime's `create_graph=True` (*partly*: see the "
        "notes); *runtime* means NumPy's function applied to `sg.Tensor`s records it "
        "(besides the PyTorch spellings listed). `0` means the derivative is declared zero "
        "(not refused). `t`, `u` are Tensors, `x` an array. *Notes* say what derivative is "
        "returned at kinks, ties, zeros and bounds.",
        "",
        "## NumPy functions that differentiate",
        "",
        *_table(["NumPy", "math / builtin", "array method", "PyTorch spelling (runtime)",
                 "reverse", "forward", "2nd order", "runtime", "notes"], numpy_rows),
        "",
        "## Functions with a zero derivative",
        "",
        "Known to srcgrad, so they may be applied to differentiated values; no gradient "
        "flows through them (the runtime records a zero-gradient node where PyTorch does).",
        "",
        *_table(["NumPy", "math / builtin", "array method", "PyTorch spelling (runtime)"],
                zero_rows),
        "",
        "## Functions that return several arrays",
        "",
        "Each item of the result is its own primitive with its own rule (listed under "
        "*items*), so unpacking, indexing and iterating over the result differentiate; the "
        "compiler needs the number of items when it compiles (a run-time `sections` is "
        "refused with advice). The modes are those of the least differentiable item.",
        "",
        *_table(["call", "items", "reverse", "forward", "2nd order", "notes"],
                [_multi_row(m) for m in sorted(MULTI.values(), key=lambda m: m.name)]),
        "",
        "## Runtime-only operations",
        "",
        "PyTorch operations of `sg.Tensor` with no NumPy function of their own (the compiler "
        "differentiates the NumPy code that computes them instead).",
        "",
        *_table(["PyTorch spelling", "rule", "reverse", "2nd order", "notes"], runtime_rows),
        "",
        "## Helper primitives",
        "",
        "Primitives the derivative code srcgrad emits calls (importable from "
        "`srcgrad.rules`); each has its own rule, so emitted code differentiates again: "
        + _code(helpers) + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return page_main(argv, page=PAGE, command=COMMAND, description=__doc__.splitlines()[0],
                     check_help="exit 1 if docs/supported.md differs from the rule table",
                     render=render)


if __name__ == "__main__":
    raise SystemExit(main())
