"""The emitted derivative annotated with the user's source (``srcgrad show --annotate``).

It sits after the backend (:mod:`.emit`), reading only its text: every ``# line N: ...``
marker the emitter wrote before the statements that came from user line N is replaced by
a listing of that user statement (all of its lines when it spans several), numbered as in
the user's file. The function's own header (decorators and ``def`` line; for a lambda, the
statement holding it) is listed above the emitted ``def``. The result is still valid
Python: every annotation is a comment::

    # 6 | def loss(x, y, scale=2.0):
    def grad_loss(x, y, scale):
        # 8 |     z = np.sin(x) * y
        _t1 = np.sin(x)
        z = _t1 * y
"""

from __future__ import annotations

import ast
import os
import re
import textwrap
from collections.abc import Mapping

_MARKER = re.compile(r"^(?P<indent>\s*)# line (?P<line>\d+):(?P<text>.*)$")
_DEF = re.compile(r"^def \w+\(")


def annotate(emitted: str, source_lines: Mapping[int, str], filename: str = "<unknown>") -> str:
    """``emitted`` with each ``# line N`` marker replaced by user line(s) N as a listing.

    ``source_lines`` maps the user's file line numbers to their text (the lines of the
    differentiated function). A marker naming a line not in it keeps the marker's own text.
    """
    spans, header = _statement_spans(source_lines)
    numbers = [n for n in source_lines] or [1]
    width = len(str(max(numbers)))
    body_indent = _common_indent(source_lines)
    out: list[str] = []
    header_done = False
    for line in emitted.splitlines():
        marker = _MARKER.match(line)
        if marker:
            number = int(marker.group("line"))
            indent = marker.group("indent")
            if number in source_lines:
                out += [_listing(indent, n, source_lines[n], body_indent, width)
                        for n in spans.get(number, [number])]
                # the frontend's note after the line's text (why a loop was unrolled, an
                # `if` folded): kept after the listing
                text, own = marker.group("text").strip(), source_lines[number].strip()
                if text.startswith(own) and text != own:
                    out[-1] += "  " + text[len(own):].strip()
            else:  # code from elsewhere (an inlined helper): the marker is all we know
                out.append(f"{indent}# {number:>{width}} | {marker.group('text').strip()}")
            continue
        if not header_done and _DEF.match(line) and header:
            where = os.path.basename(filename)
            out.append(f"# the user's source, {where}, line by line above the code it produced")
            out += [_listing("", n, source_lines[n], body_indent, width) for n in header]
            header_done = True
        out.append(line)
    return "\n".join(out) + "\n"


def _listing(indent: str, number: int, text: str, body_indent: int, width: int) -> str:
    return f"{indent}# {number:>{width}} | {text[body_indent:].rstrip()}".rstrip()


def _common_indent(source_lines: Mapping[int, str]) -> int:
    """How far the whole function is indented in its file (a method: 4)."""
    indents = [len(t) - len(t.lstrip()) for t in source_lines.values() if t.strip()]
    return min(indents, default=0)


def _statement_spans(source_lines: Mapping[int, str]) -> tuple[dict[int, list[int]], list[int]]:
    """First line of each statement -> the file lines to list for it, and the def header.

    A simple statement lists all its lines; a compound one (``for``, ``if``) only its
    header, since its body's statements carry markers of their own.
    """
    if not source_lines:
        return {}, []
    first = min(source_lines)
    numbers = range(first, max(source_lines) + 1)
    text = textwrap.dedent("\n".join(source_lines.get(n, "") for n in numbers))
    try:
        tree = ast.parse(text)
    except SyntaxError:  # e.g. a lambda cut out of a larger expression: lines one by one
        return {}, []
    offset = first - 1
    spans: dict[int, list[int]] = {}
    header: list[int] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        start = node.lineno
        end = node.end_lineno or start
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(start, body[0].lineno - 1)  # the header of a compound statement
        lines = [n + offset for n in range(start, end + 1)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not header:
            decorators = [d.lineno for d in node.decorator_list]
            header = [n + offset for n in range(min([start, *decorators]), end + 1)]
        spans.setdefault(start + offset, lines)
    if not header and tree.body:  # a lambda: the statement that holds it heads the listing
        header = spans.get(tree.body[0].lineno + offset, [])
    return spans, header
