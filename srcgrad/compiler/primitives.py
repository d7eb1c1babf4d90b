"""Functions the compiler recognises by identity in user code (re-exported as ``sg.*``)."""

from __future__ import annotations

from typing import Any

from srcgrad.errors import SrcGradError


def stop_gradient(x: Any) -> Any:
    """``x`` itself, with no derivative flowing through it (a constant to the compiler).

    Args:
        x: any value (array, float, container).

    Returns:
        ``x`` unchanged. Inside a differentiated function its derivative is zero.

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sum(x * sg.stop_gradient(x))    # d/dx = stop_gradient(x) = x

        print(sg.grad(f)(np.array([1.0, 2.0])))       # [1. 2.], not [2. 4.]
    """
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
    """``fn`` marked for recomputation in reverse mode: less memory, the same gradient.

    Inside a differentiated function, reverse mode saves only the arguments of a call of
    ``sg.checkpoint(fn)(...)`` and runs ``fn`` again for its adjoint, instead of keeping
    every intermediate value of ``fn``. Random draws, prints and other calls that must run
    once are not repeated. Outside differentiation it just calls ``fn``.

    Args:
        fn: a Python function.

    Returns:
        A callable like ``fn``.

    Example::

        import numpy as np
        import srcgrad as sg

        def step(h, w):
            return np.tanh(h * w)

        def rollout(w):
            h = np.ones(3)
            for _ in range(50):
                h = sg.checkpoint(step)(h, w)
            return np.sum(h)

        print(sg.grad(rollout)(np.array([0.9, 1.0, 1.1])))
    """
    return Checkpointed(fn)
