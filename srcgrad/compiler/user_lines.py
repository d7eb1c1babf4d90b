"""Errors raised while emitted code runs, pointed at the line of the user's source.

The backend writes a ``# line N: text`` comment before the code of each user line
(:mod:`.backend.emit`); when emitted code raises, :class:`.derivation.Derivation` calls
these on the exception, after the pipeline, at the derived function's call: the error gets a
note naming ``file:line`` of the user's function, and a complex value a rule met at run time
becomes the ``SrcGradError`` refusal it is.
"""

from __future__ import annotations

import functools
import linecache
from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules.complex_parts import RealValuesOnly


def point_to_user_line(error: BaseException, f: Any) -> None:
    """Add a note naming the user's line whose emitted code raised ``error`` (3.11+)."""
    if not hasattr(error, "add_note") or getattr(error, "_srcgrad_noted", False):
        return
    found = _user_line(error, f)
    if found is not None:
        where, number, source_text = found
        error.add_note(f"srcgrad: raised by the derivative code emitted for "
                       f"{where}:{number}: {source_text}")
        error._srcgrad_noted = True  # type: ignore[attr-defined]


def _user_line(error: BaseException, f: Any) -> tuple[str, int, str] | None:
    """``(user's file, line, its text)`` of the emitted code that raised ``error``."""
    tb, lineno, filename = error.__traceback__, None, None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<srcgrad:") and "# line " in "".join(
                linecache.getlines(code.co_filename)):
            filename, lineno = code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    if lineno is None:
        return None
    for text in reversed(linecache.getlines(filename)[:lineno]):
        stripped = text.strip()
        if stripped.startswith("# line "):
            number, _, source_text = stripped[len("# line "):].partition(": ")
            return _source_file(f), int(number), source_text
    return None


def _source_file(f: Any) -> str:
    """The file of the user's function behind ``f``: a derived function (``sg.grad(fun)``
    inside ``sg.jvp(...)``) is followed to ``fun``, whose lines its ``# line N`` comments
    name (its own code object is the emitted ``<srcgrad:...>`` text); a bound method or
    ``functools.partial`` to the function it calls."""
    for _ in range(64):  # (a chain of composed transforms)
        handle = getattr(f, "__srcgrad__", None)
        inner = getattr(handle, "f", None)
        if inner is None or inner is f:
            break
        f = inner
    f = getattr(f, "__func__", f)
    if isinstance(f, functools.partial):
        f = f.func
    return getattr(getattr(f, "__code__", None), "co_filename", "<unknown>")


def refuse_real_only(error: BaseException, f: Any) -> None:
    """A rule found at run time that a value is complex (``np.linalg.eig`` of a matrix
    with complex eigenvalues): raise it as the refusal it is, at the user's line."""
    if not isinstance(error, RealValuesOnly):
        return
    found = _user_line(error, f)
    where = {} if found is None else {"filename": found[0], "lineno": found[1]}
    raise SrcGradError(str(error), advice=error.advice, **where) from error
