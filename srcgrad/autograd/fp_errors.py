"""Floating-point errors in the forward pass are values, not warnings (as in PyTorch).

``sg.tensor([-1.0]).sqrt()`` is ``nan`` and ``log(0)`` is ``-inf`` in PyTorch, silently;
NumPy would print a ``RuntimeWarning``. The recording paths (``tensor.ops``,
``tensor.inplace``, ``tensor.fixed_ops``) run each operation between
``token = quiet(IGNORE)`` and ``restore(token)``: NumPy keeps its error state in a context
variable (NumPy >= 2), so this is one ``ContextVar.set`` and one ``reset`` per operation
(~0.1 us), where ``with np.errstate(all="ignore")`` costs ~0.8 us. The user's own state
(``np.seterr(divide="raise")``) is back in place after each op. The backward pass
silences the same errors once per call (the engine, the same way); this module sits in the
autograd layer so that the engine, below the tensor layer, can use it.
"""

from __future__ import annotations

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
except (ImportError, AttributeError, TypeError):  # another layout: the public, slower way
    IGNORE = None

    def quiet(_: Any) -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(state: Any) -> Any:
        return state.__exit__(None, None, None)
