"""Write ``docs/api.md``, the API reference, from the public docstrings.

Run ``python -m srcgrad.tools.apidoc`` after changing a public name or its docstring
(``--check`` only compares and exits 1 when the page is stale; ``tests/docs/test_api_page.py``
does the same). The page is read from the code, so ``help(sg.grad)`` and the page say the
same: each name's signature comes from :func:`inspect.signature`, its text from its
docstring (Google style: a summary, then ``Args:``, ``Returns:`` and ``Example::``
sections; the example becomes a ```python block that the docs test runs as a script).
Families of look-alike names (dtypes, the module-level mirrors of Tensor methods, Tensor
methods) are tables with one example per family, written here. A tool on top of the
package: it imports ``srcgrad`` like any user.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import srcgrad as sg

from .api_examples import FAMILY_EXAMPLES
from .pages import page_main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
COMMAND = "python -m srcgrad.tools.apidoc"

_COMPILER = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "source",
             "defvjp", "defjvp", "stop_gradient", "checkpoint", "clear_cache", "tree_map",
             "tree_leaves", "SrcGradError"]
_GRAD_MODE = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]
_DTYPES = ["DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "bool"]
_MODULES = {"autograd": "sg.autograd", "optim": "sg.optim", "linalg": "sg.linalg",
            "viz": "sg.viz", "rules": "the rule table", "dtypes": "dtypes and promotion",
            "functions": "the module-level functions", "nn": "sg.nn"}


def _signature(obj: Any, name: str) -> str:
    """``name(a, b=1, *, c=None)`` without annotations (they read as noise here)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return name
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    if params and params[0].name == "self":
        params = params[1:]
    text = str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))
    return name + re.sub(r" at 0x[0-9a-f]+", "", text)


def _md(text: str) -> str:
    """reST inline markup as Markdown: ``x`` -> `x`, :func:`y` -> `y`."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def _sections(doc: str) -> tuple[str, dict[str, str]]:
    """The docstring's summary and its ``Args:``/``Returns:``/``Example::`` sections."""
    parts: dict[str, list[str]] = {}
    summary: list[str] = []
    current = summary
    for line in doc.splitlines():
        head = re.fullmatch(r"(Args|Arguments|Returns|Raises|Example|Examples):+", line.strip())
        if head and not line.startswith(" "):
            current = parts.setdefault(head.group(1).rstrip("s").replace("Argument", "Arg"),
                                       [])
            continue
        current.append(line)
    return "\n".join(summary).strip(), {k: textwrap.dedent("\n".join(v)).strip("\n")
                                        for k, v in parts.items()}


def _args(text: str) -> str:
    """An ``Args:`` section as a Markdown list (continuation lines joined)."""
    items: list[str] = []
    for line in text.splitlines():
        if re.match(r"\S", line):
            items.append(line.strip())
        elif items:
            items[-1] += " " + line.strip()
    out = []
    for item in items:
        name, _, rest = item.partition(":")
        out.append(f"- `{name.strip()}`: {_md(rest.strip())}")
    return "\n".join(out)


def _own_doc(obj: Any) -> str:
    """``obj``'s own docstring: a class that has none does not borrow its base's."""
    if inspect.isclass(obj) and not obj.__dict__.get("__doc__"):
        return ""
    return inspect.getdoc(obj) or ""


def _torch_name(qualified: str) -> str:
    return "torch" + qualified.removeprefix("sg")


def entry(qualified: str, obj: Any) -> str:
    """One name's reference: heading, signature, docstring, example."""
    summary, parts = _sections(_own_doc(obj))
    lines = [f"### `{qualified}`", ""]
    if callable(obj):
        lines += ["```text", _signature(obj, qualified), "```", ""]
    # the runtime's names without a docstring of their own mean what PyTorch's mean
    lines += [_md(summary) or f"As PyTorch's `{_torch_name(qualified)}`.", ""]
    if "Arg" in parts:
        lines += ["**Arguments**", "", _args(parts["Arg"]), ""]
    if "Return" in parts:
        body = " ".join(s.strip() for s in parts["Return"].splitlines())
        lines += [f"**Returns** {_md(body)}", ""]
    if "Raise" in parts:
        body = " ".join(s.strip() for s in parts["Raise"].splitlines())
        lines += [f"**Raises** {_md(body)}", ""]
    if "Example" in parts:
        lines += ["```python", parts["Example"], "```", ""]
    return "\n".join(lines)


def _summary_line(obj: Any) -> str:
    doc = _own_doc(obj)
    first = doc.split("\n\n")[0].replace("\n", " ").strip()
    return _md(first).replace("|", "\\|")


def _table(rows: list[tuple[str, str]]) -> str:
    lines = ["| name | signature and description |", "|---|---|"]
    lines += [f"| `{name}` | {text} |" for name, text in rows]
    return "\n".join(lines) + "\n"


def _namespace(module: Any) -> list[str]:
    return [n for n in getattr(module, "__all__", []) if not n.startswith("_")]


def _section(title: str, intro: str, prefix: str, module: Any, names: list[str],
             example: str | None = None) -> str:
    """One heading per name; ``example`` (for names without one of their own) first."""
    body = [f"## {title}", "", intro, ""]
    if example is not None:
        body += ["```python", example.rstrip("\n"), "```", ""]
    for name in names:
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            body += [f"### `{prefix}{name}`", "", _md(_summary_line(obj)), ""]
        else:
            body.append(entry(prefix + name, obj))
    return "\n".join(body)


def _family(title: str, intro: str, rows: list[tuple[str, str]], example: str) -> str:
    return "\n".join([f"## {title}", "", intro, "", _table(rows), "```python",
                      example.rstrip("\n"), "```", ""])


def _optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def covered_names() -> dict[str, list[str]]:
    """Every public name the page must document, by namespace (``sg``, ``sg.nn``, ...)."""
    names = {"sg": _namespace(sg), "sg.autograd": _namespace(sg.autograd),
             "sg.autograd.functional": ["jacobian", "hessian"],
             "sg.optim": _namespace(sg.optim), "sg.linalg": _namespace(sg.linalg),
             "sg.viz": ["make_dot"]}
    for module, key in ((_optional("srcgrad.nn"), "sg.nn"),
                        (_optional("srcgrad.nn.functional"), "sg.nn.functional")):
        if module is not None:
            names[key] = _namespace(module)
    return names


def render() -> str:
    """The whole page."""
    mirrors = [n for n in sg.functions.__all__ if n in sg.functions._FUNCTIONS]
    others = [n for n in sg.functions.__all__ if n not in sg.functions._FUNCTIONS]
    placed = set(_COMPILER + _GRAD_MODE + _DTYPES + mirrors + others) | set(_MODULES)
    runtime = [n for n in sg.__all__ if n not in placed and not n.startswith("_")]
    out = [
        "# API reference",
        "",
        f"<!-- generated by `{COMMAND}` from the docstrings; do not edit by hand -->",
        "",
        "Generated from the docstrings by `" + COMMAND + "` (so `help(sg.grad)` says the same;",
        "`tests/docs/test_api_page.py` fails when this page is stale). Every public name of",
        "`srcgrad` (imported as `sg`), `sg.autograd`, `sg.optim`, `sg.linalg`, `sg.viz` and",
        "`sg.nn` is here. Examples are scripts: save one in a file and run it (srcgrad reads",
        "the source of the functions it differentiates, which a `>>>` prompt does not keep);",
        "families of look-alike names share one example. What the NumPy functions",
        "differentiate is listed in [supported.md](supported.md).",
        "",
        "Contents: [the compiler](#the-compiler) · [tensors](#tensors-and-factories) ·",
        "[grad mode](#grad-mode) · [dtypes](#dtypes) · [math functions](#math-functions) ·",
        "[Tensor methods](#tensor-methods) · [sg.autograd](#sgautograd) ·",
        "[sg.optim](#sgoptim) · [sg.linalg](#sglinalg) · [sg.nn](#sgnn) ·",
        "[sg.nn.functional](#sgnnfunctional) · [modules](#modules)",
        "",
        _section("The compiler", "Source-to-source derivatives of Python/NumPy functions.",
                 "sg.", sg, _COMPILER),
        _section("Tensors and factories", "The runtime's Tensor and the functions that "
                 "make one, with PyTorch's signatures (float data is float32 by default).",
                 "sg.", sg, runtime, FAMILY_EXAMPLES["tensors"]),
        _section("Grad mode", "Whether operations on tensors are recorded (per thread).",
                 "sg.", sg, _GRAD_MODE, FAMILY_EXAMPLES["grad_mode"]),
        _family("dtypes", "`sg.DType` objects with PyTorch's names; `t.dtype` is one of "
                "them.", [(f"sg.{n}", _summary_line(getattr(sg, n)) if n == "DType" else
                           f"`{getattr(sg, n)}`") for n in _DTYPES], FAMILY_EXAMPLES["dtypes"]),
        _family("Math functions", "Module-level functions with PyTorch's names. Each "
                "`sg.name(t, ...)` is `t.name(...)` (numbers and arrays become tensors), so "
                "it records the same node.",
                [(f"sg.{n}", f"`{_signature(getattr(sg.Tensor, n), 'sg.' + n)}`")
                 for n in mirrors]
                + [(f"sg.{n}", f"`{_signature(getattr(sg, n), 'sg.' + n)}` "
                    + _summary_line(getattr(sg, n))) for n in others],
                FAMILY_EXAMPLES["mirrors"]),
        _family("Tensor methods", "`sg.Tensor`'s public methods and properties, with "
                "PyTorch's names and signatures.",
                [(f"Tensor.{n}", (f"`{_signature(getattr(sg.Tensor, n), n)}` "
                                  if callable(getattr(sg.Tensor, n)) else "")
                  + _summary_line(getattr(sg.Tensor, n)))
                 for n in sorted(a for a in dir(sg.Tensor) if not a.startswith("_"))],
                FAMILY_EXAMPLES["methods"]),
        _section("sg.autograd", _md(_summary_line(sg.autograd)), "sg.autograd.",
                 sg.autograd, _namespace(sg.autograd), FAMILY_EXAMPLES["autograd"]),
        _section("sg.autograd.functional", _md(_summary_line(sg.autograd.functional)),
                 "sg.autograd.functional.", sg.autograd.functional, ["jacobian", "hessian"]),
        _section("sg.optim", _md(_summary_line(sg.optim)), "sg.optim.", sg.optim,
                 _namespace(sg.optim), FAMILY_EXAMPLES["optim"]),
        _section("sg.linalg", _md(_summary_line(sg.linalg)), "sg.linalg.", sg.linalg,
                 _namespace(sg.linalg), FAMILY_EXAMPLES["linalg"]),
    ]
    nn = _optional("srcgrad.nn")
    if nn is not None:
        functional = importlib.import_module("srcgrad.nn.functional")
        out += [_section("sg.nn", _md(_summary_line(nn)), "sg.nn.", nn,
                         [n for n in _namespace(nn) if n != "functional"],
                         FAMILY_EXAMPLES["nn"]),
                _section("sg.nn.functional", _md(_summary_line(functional)),
                         "sg.nn.functional.", functional, _namespace(functional),
                         FAMILY_EXAMPLES["nn_functional"])]
    else:
        out += ["## sg.nn", "", "(not in this build)", "", "## sg.nn.functional", "",
                "(not in this build)", ""]
    out += [_section("sg.viz", _md(_summary_line(sg.viz)), "sg.viz.", sg.viz, ["make_dot"],
                     FAMILY_EXAMPLES["viz"]),
            "## Modules", "",
            *[f"- `sg.{n}`: {_md(_summary_line(getattr(sg, n)))}" for n in _MODULES
              if hasattr(sg, n) and n in sg.__all__],
            f"- `sg.__version__`: the version string (`{sg.__version__}`).", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    return page_main(argv, page=PAGE, command=COMMAND, description=__doc__.split("\n\n")[0],
                     check_help="exit 1 if docs/api.md differs from what would be written",
                     render=render)


if __name__ == "__main__":
    sys.exit(main())
