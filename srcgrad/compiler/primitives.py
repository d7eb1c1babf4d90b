"""Functions the compiler recognises by identity in user code (re-exported as ``sg.*``)."""

from __future__ import annotations

from typing import Any

from srcgrad.errors import SrcGradError


def stop_gradient(x: Any) -> Any:
    """``x`` itself; the compiler lets no derivative flow through it."""
    return x


class Checkpointed:
    """What ``sg.checkpoint(fn)`` returns: calls ``fn``; inside a differentiated function,
    reverse mode saves only the call's arguments and recomputes ``fn`` for its adjoint.
    ``fn`` itself stays unmarked."""

    def __init__(self, fn: Any, *, compile_time: bool = False) -> None:
        # compile_time: made by the frontend for ``sg.checkpoint(step)`` in user code,
        # where ``step`` may be a nested def the frontend holds as a non-callable record
        if not compile_time and not callable(fn):
            raise SrcGradError(f"sg.checkpoint needs a function, got {type(fn).__name__}.")
        self.fn = fn
        self.__wrapped__ = fn
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            if hasattr(fn, attr):
                setattr(self, attr, getattr(fn, attr))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"sg.checkpoint({getattr(self.fn, '__qualname__', self.fn)!r})"


def checkpoint(fn: Any) -> Checkpointed:
    """``fn`` marked for recomputation in reverse mode (API.md "Memory")."""
    return Checkpointed(fn)
