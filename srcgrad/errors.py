"""Errors srcgrad raises to users (top of no pipeline: every layer may import it)."""

from __future__ import annotations


class SrcGradError(Exception):
    """Base of every error the compiler raises: what went wrong, where, and what to do."""

    def __init__(self, message: str, *, filename: str | None = None, lineno: int | None = None,
                 advice: str | None = None) -> None:
        self.message = message  # without the place and the advice (for re-raising)
        self.filename = filename
        self.lineno = lineno
        self.advice = advice
        where = f"{filename}:{lineno}: " if filename and lineno else ""
        text = f"{where}{message}"
        if advice:
            text += f" {advice}"
        super().__init__(text)
