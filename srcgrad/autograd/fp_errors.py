"""Floating-point errors in the forward pass are values, not warnings (as in PyTorch).

``sg.tensor([-1.0]).sqrt()`` is ``nan`` and ``log(0)`` is ``-inf`` in PyTorch, silently;
NumPy would print a ``RuntimeWarning``. The recording paths (``tensor.ops``,
``tensor.inplace``, ``tensor.fixed_ops``) run each operation between
``token = quiet(IGNORE)`` and ``restore(token)``: NumPy keeps its error state in a context
variable (NumPy >= 2), so this is one ``ContextVar.set`` and one ``reset`` per operation,
where ``with np.errstate(all="ignore")`` costs ~0.8 us. The user's own state
(``np.seterr(divide="raise")``) is back in place after each op. The backward pass
silences the same errors once per call (the engine, the same way); this module sits in the
autograd layer so that the engine, below the tensor layer, can use it.

The elementwise fast paths use :data:`QUIET` instead: ``QUIET.run(ufunc, x, y)`` calls the
ufunc inside a context made once per thread whose error state is already ``IGNORE``.
Entering a context costs ~15 ns where ``set`` + ``reset`` cost ~130 ns on small arrays
(each builds a new context mapping and a token, and the ufunc's own lookup of the state
then misses the variable's cache). A context can be entered once at a time, hence one per
thread; and an operation recorded while it is entered (a finalizer run by the garbage
collector inside a ufunc) gets ``RuntimeError`` from ``run``: such callers fall back to
:func:`quietly`. Only NumPy's own loops may run inside (float operands, NumPy or srcgrad
implementations): a user's function would see the context copied when the thread first
recorded.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

quiet: Callable[[Any], Any]
restore: Callable[[Any], Any]

try:  # NumPy >= 2: the error state is the context variable errstate sets
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    IGNORE: Any = _make_extobj(all="ignore")
    quiet = _extobj_contextvar.set
    restore = _extobj_contextvar.reset
    _CONTEXT_STATE = True
except (ImportError, AttributeError, TypeError):  # another layout: the public, slower way
    IGNORE = None
    _CONTEXT_STATE = False

    def quiet(_: Any) -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(state: Any) -> Any:
        return state.__exit__(None, None, None)


def quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with floating-point errors ignored (the reentrant way)."""
    token = quiet(IGNORE)
    try:
        return fn(*args, **kwargs)
    finally:
        restore(token)


class _Quiet(threading.local):
    """Per thread, ``run(fn, *args)``: ``fn(*args)`` in a context whose error state is
    ``IGNORE`` (see the module docstring)."""

    def __init__(self) -> None:
        if _CONTEXT_STATE:
            context = contextvars.copy_context()
            context.run(quiet, IGNORE)
            self.run: Callable[..., Any] = context.run
        else:
            self.run = quietly


QUIET = _Quiet()
