"""First frontend step: a user function's source, parsed with gast.

``inspect.getsource`` + dedent + ``gast.parse``; the result records the file and the
first line so every later message and ``# line N`` comment uses the user's file lines.
Lambdas are found among the parsed line(s) by position and parameter names.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any

import gast

from srcgrad.errors import SrcGradError


@dataclass
class Parsed:
    """A function's syntax tree and where it came from."""

    node: Any  # gast.FunctionDef or gast.Lambda
    filename: str
    firstlineno: int  # file line of the tree's line 1
    lines: dict[int, str] = field(default_factory=dict)  # file line -> source text

    def file_line(self, node: Any) -> int | None:
        lineno = getattr(node, "lineno", None)
        return None if lineno is None else lineno + self.firstlineno - 1


_cache: dict[Any, Parsed] = {}


def parse_function(fn: Any) -> Parsed:
    """Parse ``fn``'s source. Raises SrcGradError when there is none (REPL, ``exec``)."""
    code = getattr(fn, "__code__", None)
    # code objects compare equal across files (co_filename is not compared): two modules
    # holding the same text at the same line would share one parse, and the second's
    # messages and line comments would name the first's file
    key = (code, getattr(code, "co_filename", None), getattr(fn, "__name__", None))
    if code is not None and key in _cache:
        return _cache[key]
    name = getattr(fn, "__qualname__", repr(fn))
    try:
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
        src_lines, firstlineno = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise SrcGradError(
            f"cannot read the source of {name} (defined in a REPL, by exec, or in C)",
            filename=getattr(code, "co_filename", None),
            lineno=getattr(code, "co_firstlineno", None),
            advice="Define it in a .py file, or register its derivative with sg.defvjp.",
        ) from None
    text = textwrap.dedent("".join(src_lines))
    tree = _parse(text, fn, name)
    node = _find(tree, fn, name)
    lines = {firstlineno + i: line.rstrip() for i, line in enumerate(src_lines)}
    parsed = Parsed(node, filename, firstlineno, lines)
    if code is not None:
        _cache[key] = parsed
    return parsed


def _parse(text: str, fn: Any, name: str) -> Any:
    attempts = [text, text.strip().rstrip(",;)") + "\n"]
    if text.lstrip().startswith((".", ",")):
        attempts.append(text.lstrip(" .,"))
    for attempt in attempts:
        try:
            return gast.parse(attempt)
        except SyntaxError:
            continue
    # a lambda inside a larger expression: parse just from 'lambda' on
    start = text.find("lambda")
    if start >= 0:
        tail = text[start:]
        for end in range(len(tail), 0, -1):
            try:
                return gast.parse("(" + tail[:end] + ")")
            except SyntaxError:
                continue
    raise SrcGradError(f"cannot parse the source of {name}",
                       advice="Define it with def in a .py file.")


def _find(tree: Any, fn: Any, name: str) -> Any:
    short = getattr(fn, "__name__", "")
    code = getattr(fn, "__code__", None)
    want = list(code.co_varnames[: code.co_argcount]) if code else None
    for node in gast.walk(tree):
        if isinstance(node, gast.FunctionDef) and node.name == short:
            return node
    if short == "<lambda>":
        for node in gast.walk(tree):
            if isinstance(node, gast.Lambda):
                names = [a.id for a in node.args.args]
                if want is None or names == want:
                    return node
    raise SrcGradError(f"cannot find the definition of {name} in its source",
                       advice="Define it with def in a .py file.")
