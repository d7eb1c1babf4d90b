"""Grad mode: is the current thread recording operations? (bottom of the runtime).

PyTorch keeps this flag per thread; so do we (``threading.local``). ``no_grad``,
``enable_grad`` and ``set_grad_enabled`` are context managers and decorators;
``set_grad_enabled(flag)`` called plainly also switches the mode at once, as in PyTorch.

The tensor layer's hot paths read :data:`ALL_THREADS` first: ``ALL_THREADS.grad`` is True
only while grad mode is on in every thread, so ``ALL_THREADS.grad or STATE.enabled`` is
this thread's mode. (A thread-local attribute costs about three slot reads, once per
recorded operation; the flag is kept by the one setter of ``STATE.enabled``.)
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _AllThreads:
    """``grad``: is grad mode on in every thread? (Read before :data:`STATE`.)"""

    __slots__ = ("grad",)

    def __init__(self) -> None:
        self.grad = True


ALL_THREADS = _AllThreads()
# The threads (by ident) whose grad mode is off. A thread that ends with its mode off
# stays here: the flag stays False, which only sends readers to STATE (never wrong).
_OFF: set[int] = set()
_LOCK = threading.RLock()  # (reentrant: a finalizer run inside may switch the mode)


class _State(threading.local):
    _on = True  # class default: every new thread starts with grad mode on

    @property
    def enabled(self) -> bool:
        return self._on

    @enabled.setter
    def enabled(self, flag: bool) -> None:
        # Only a thread itself sets its mode; it is in _OFF before it can record again.
        self._on = flag
        ident = threading.get_ident()
        with _LOCK:
            if flag:
                _OFF.discard(ident)
            else:
                _OFF.add(ident)
            ALL_THREADS.grad = not _OFF


STATE = _State()


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad are being recorded."""
    return STATE._on


class _GradModeContext:
    """Base of the three context managers: sets ``STATE.enabled`` and restores it."""

    _mode: bool

    def __init__(self) -> None:
        self._saved: list[bool] = []

    def __enter__(self) -> None:
        self._saved.append(STATE.enabled)
        STATE.enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        STATE.enabled = self._saved.pop()

    def __call__(self, fn: F) -> F:
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            previous = STATE.enabled
            STATE.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                STATE.enabled = previous

        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeContext):  # noqa: N801  (PyTorch's name)
    """Operations inside record nothing; their results are leaves."""

    _mode = False


class enable_grad(_GradModeContext):  # noqa: N801
    """Turn recording back on inside a ``no_grad`` block."""

    _mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """``set_grad_enabled(flag)``: switch now; as a context manager, restore on exit."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._previous = STATE.enabled
        STATE.enabled = self._mode

    def __enter__(self) -> None:
        # The mode was switched by the constructor; remember what to restore.
        self._saved.append(self._previous)

    def __call__(self, fn: F) -> F:
        STATE.enabled = self._previous  # used as a decorator: do not switch at definition
        return super().__call__(fn)


class inference_mode(no_grad):  # noqa: N801
    """Accepted for PyTorch compatibility; behaves as ``no_grad``."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._mode = not mode
