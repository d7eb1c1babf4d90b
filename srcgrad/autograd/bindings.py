"""What the tensor layer lends autograd: the Tensor class and three helpers (bottom of
the runtime, beside grad mode).

autograd sits strictly below ``srcgrad.tensor``: no module here imports it, not even
inside a function. Yet backward must sometimes make or inspect a Tensor (``.grad``
accumulation, ``create_graph``, a custom Function's edges, the name of a dtype in an
error). The tensor layer therefore hands those in once, when it is imported, through
:func:`bind`; autograd reads them from :data:`RUNTIME`. Nothing can run a backward pass
before a Tensor exists, so the slots are always filled when they are read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Runtime:
    """The slots :func:`bind` fills (class defaults: unbound)."""

    tensor: Any = None  # the Tensor class
    edge: Callable[[Any], tuple[Any, int]]  # where a cotangent for a tensor goes
    requires: Callable[[Any], bool]  # does a value require grad now (views included)
    stack: Callable[[list[Any]], Any]  # sg.stack, recorded (functional.jacobian)
    dtype_name: Callable[[Any], str]  # PyTorch's legacy name of a NumPy dtype (errors)


RUNTIME = Runtime()


def bind(**slots: Any) -> None:
    """Called by ``srcgrad.tensor`` at import: fill :data:`RUNTIME`'s slots."""
    for name, value in slots.items():
        if name not in Runtime.__annotations__:
            raise TypeError(f"autograd has no binding called {name!r}")
        setattr(RUNTIME, name, value)
