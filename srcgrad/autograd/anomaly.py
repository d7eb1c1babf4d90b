"""Anomaly detection: name the backward node that produced NaN, and where it was made.

While the mode is on, every node created records the stack of its forward call; the
engine checks each node's results for NaN and, when a node fails, warns with that stack
("Error detected in MulBackward0. Traceback of forward call ...") before re-raising.
Like PyTorch's, the switch is process-wide.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _Anomaly:
    # slots: every recorded operation reads ``enabled`` (a slot read is specialised by
    # the interpreter; a class attribute read through an instance is not)
    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


ANOMALY = _Anomaly()


def is_anomaly_enabled() -> bool:
    """True inside ``detect_anomaly()`` or after ``set_detect_anomaly(True)``."""
    return ANOMALY.enabled


def forward_trace() -> str:
    """The current Python stack, as recorded for a node made in anomaly mode."""
    frames = [f for f in traceback.extract_stack()[:-1] if "/srcgrad/tensor/" not in f.filename
              and "/srcgrad/autograd/" not in f.filename]
    return "".join(traceback.format_list(frames))


class set_detect_anomaly:  # noqa: N801  (PyTorch's name)
    """``set_detect_anomaly(flag)`` switches now; as a context manager it restores on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled = bool(mode)
        ANOMALY.check_nan = bool(check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        ANOMALY.enabled, ANOMALY.check_nan = self._previous


class detect_anomaly:  # noqa: N801
    """Context manager and decorator that turns anomaly detection on inside."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._saved: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._saved.append((ANOMALY.enabled, ANOMALY.check_nan))
        ANOMALY.enabled, ANOMALY.check_nan = True, self.check_nan

    def __exit__(self, *exc: object) -> None:
        ANOMALY.enabled, ANOMALY.check_nan = self._saved.pop()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
