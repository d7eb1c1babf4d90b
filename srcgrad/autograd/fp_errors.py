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
ufunc inside a context made once whose error state is already ``IGNORE``. Entering a
context costs ~15 ns where ``set`` + ``reset`` cost ~130 ns on small arrays (each builds
a new context mapping and a token, and the ufunc's own lookup of the state then misses
the variable's cache). A context can be entered once at a time: an operation recorded
while it is entered (a finalizer run by the garbage collector inside a ufunc, or another
thread's operation while a long ufunc released the GIL) gets ``RuntimeError`` from
``run`` before anything ran, and such callers fall back to :func:`quietly`. The context is
one for the process, not one per thread: ``QUIET.run`` is then a plain attribute (a
thread-local one costs about three slot reads, once per operation), and the ops bind it
as a global name. Only NumPy's own loops may run inside (float operands, NumPy or
srcgrad implementations): a user's function would see the context copied at import.
"""

from __future__ import annotations

import contextvars
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


class _Quiet:
    """``run(fn, *args)``: ``fn(*args)`` in the context whose error state is ``IGNORE``, or
    ``RuntimeError`` when that context is entered already (see the module docstring)."""

    __slots__ = ("run",)

    def __init__(self) -> None:
        if _CONTEXT_STATE:
            context = contextvars.copy_context()
            context.run(quiet, IGNORE)
            self.run: Callable[..., Any] = context.run
        else:
            self.run = quietly


QUIET = _Quiet()
