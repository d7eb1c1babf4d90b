"""Functions the compiler recognises by identity in user code (re-exported as ``sg.*``)."""

from __future__ import annotations

from typing import Any


def stop_gradient(x: Any) -> Any:
    """``x`` itself; the compiler lets no derivative flow through it."""
    return x
