"""The compiler's outer net: only ``SrcGradError`` (or the user's own exception) leaves it.

API.md "Soundness": every failure of the compiler reaches the user as ``sg.SrcGradError``,
never an internal ``IndexError``/``TypeError``/IR error. The lowering, the transforms, the
passes and the emitter each raise ``SrcGradError`` for what they refuse; this module is the
net under them for what they did not foresee. It wraps the one place a derivative is
compiled (:meth:`srcgrad.compiler.derivation.Derivation.compile`)::

    with compiler_boundary(f):
        ...lower, differentiate, optimise, emit...

An exception raised there by srcgrad itself becomes :class:`InternalCompilerError` (a
``SrcGradError``), located at ``f``'s ``def`` line, naming the internal exception and chained
to it (``raise ... from``), so its traceback is kept. An exception raised by the user's own
code while compiling (a custom rule's body, a callee evaluated at compile time) passes
unchanged: it is theirs to read.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import sysconfig
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from srcgrad.errors import SrcGradError


class InternalCompilerError(SrcGradError):
    """srcgrad failed on something it should have handled: a bug to report.

    A ``SrcGradError`` so that "right or refused" holds for users; its own class so that the
    fuzzer and the tests can tell a bug from a deliberate refusal.
    """


def _library_roots() -> tuple[str, ...]:
    """Folders whose code is not the user's: srcgrad, the standard library, site-packages."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # srcgrad/
    roots = {package}
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            roots.add(os.path.abspath(paths[key]))
    return tuple(sorted(roots))


_LIBRARY = _library_roots()


def _user_frame(tb: TracebackType | None) -> bool:
    """Did the exception pass through a frame of code outside every library (the user's)?"""
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith("<") and not os.path.abspath(filename).startswith(_LIBRARY):
            return True
        tb = tb.tb_next
    return False


def _where(f: Any) -> tuple[str | None, int | None]:
    try:
        target = inspect.unwrap(f)
        return inspect.getsourcefile(target), inspect.getsourcelines(target)[1]
    except (TypeError, OSError):
        return None, None


@contextlib.contextmanager
def compiler_boundary(f: Any) -> Iterator[None]:
    """Turn an internal exception raised while compiling a derivative of ``f`` into an
    :class:`InternalCompilerError` at ``f``'s ``def`` line (the user's own exceptions pass)."""
    try:
        yield
    except SrcGradError:
        raise
    except MemoryError:
        raise
    except Exception as e:
        # frames after the boundary's own: is any of them the user's code?
        if _user_frame(sys.exc_info()[2].tb_next):
            raise
        filename, lineno = _where(f)
        name = getattr(f, "__qualname__", getattr(f, "__name__", repr(f)))
        raise InternalCompilerError(
            f"srcgrad failed while compiling the derivative of {name}: internal "
            f"{type(e).__name__}: {e}",
            filename=filename, lineno=lineno,
            advice="This is a bug in srcgrad: please report it with this function. To go on, "
                   "rewrite the construct the traceback above points at, or give the function "
                   "a rule with sg.defvjp/sg.defjvp.") from e
