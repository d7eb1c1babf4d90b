"""Checking ``--types`` / ``render(types=...)`` kinds against the function before compiling.

Sits beside :mod:`.api` (which calls it only when the user named kinds). ``array[N]`` means
an array of N *dimensions*; a user who reads it as "N elements" asks for a rank the function
cannot take (``array[5]`` for a vector), and the compiler, whose shape facts come from
evaluating each primitive on small examples, would quietly print code for it. So the user's
function runs once on small example values of the named kinds (every axis of length 2, then
3, the compiler's own examples); when both raise an error about dimensions, the kinds are
refused with the error, the user's line and what ``array[N]`` means.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import SrcGradError
from .ir import types as T

# NumPy's and Python's wording for an operation given the wrong number of dimensions
_RANK_WORDS = re.compile(r"dimension|too many indices|ndim|\brank\b|\b\d-d\b|\d+d array|"
                         r"scalar|0-dimensional|at least (one|two)|mismatch in its core", re.I)
ARRAY_N = ("array[N] is an array with N dimensions (array[0] a 0-d array, array[1] a vector, "
           "array[2] a matrix), not an array of N elements")


def check_ranks(f: Any, names: Sequence[str], kinds: Sequence[T.AType],
                texts: Sequence[str]) -> None:
    """Raise :class:`SrcGradError` when ``f`` cannot run on arrays of the ranks named."""
    if not all(isinstance(k, T.AType) for k in kinds) or not any(
            k.kind == "array" for k in kinds):
        return  # structured kinds (dict(...), list(...)) are checked when compiled
    error: BaseException | None = None
    for size in (2, 3):
        args = [T.example(k, size) for k in kinds]
        if any(a is None for a in args):
            return  # a structured or unknown kind: nothing cheap to run
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings(), \
                    contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                f(*args)
            return
        except Exception as e:  # the user's own error on example values
            error = e if error is None else error
    if error is None or not _RANK_WORDS.search(str(error)):
        return  # not about ranks: the values, not the kinds, made it fail
    filename, lineno = _user_line(error, f)
    given = ", ".join(f"{n}: {t}" for n, t, k in zip(names, texts, kinds) if k.kind == "array")
    raise SrcGradError(
        f"--types: {getattr(f, '__name__', 'the function')} cannot take arrays of these ranks "
        f"({given}): on example arrays of them it raised {type(error).__name__}: "
        f"{_short(str(error))}.", filename=filename, lineno=lineno,
        advice=f"{ARRAY_N}; give each parameter the number of dimensions it takes.")


def _user_line(error: BaseException, f: Any) -> tuple[str | None, int | None]:
    """The deepest frame of ``f``'s own file in the traceback (the user's line)."""
    code = getattr(f, "__code__", None)
    filename = getattr(code, "co_filename", None)
    found: tuple[str | None, int | None] = (None, None)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
