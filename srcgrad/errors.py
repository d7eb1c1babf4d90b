"""Errors srcgrad raises to users (top of no pipeline: every layer may import it)."""

from __future__ import annotations


class SrcGradError(Exception):
    """Base of every error the compiler raises: what went wrong, where, and what to do.

    Raised when a derivative is compiled (never a silently wrong derivative): the message
    starts with the user's ``file:line`` and ends with advice. An internal failure is an
    ``InternalCompilerError``, a subclass, chained to the internal exception.

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sum(np.block([x, x]))       # np.block has no derivative rule

        try:
            sg.grad(f)(np.array([3.0, 1.0, 2.0]))
        except sg.SrcGradError as error:
            print(error)
    """

    def __init__(self, message: str, *, filename: str | None = None, lineno: int | None = None,
                 advice: str | None = None) -> None:
        self.message = message  # without the place and the advice (for re-raising)
        self.filename = filename
        self.lineno = lineno
        self.advice = advice
        where = f"{filename}:{lineno}: " if filename and lineno else ""
        text = f"{where}{message}"
        if advice:
            # (a message that ends without a stop gets one before the advice)
            text = text.rstrip()
            text += f"{'' if text.endswith(('.', '!', '?', ':')) else '.'} {advice}"
        super().__init__(text)
