"""Array methods and attributes, as calls of the table's primitives.

Rule bodies never call methods (on a Tensor ``x.sum(1)`` means PyTorch's thing), but user
code does; the compiler lowers ``x.reshape(2, 3)`` to the ``reshape`` rule with
``reshape(x, (2, 3))``. Each entry is ``method name -> (rule name, convert)``, where
``convert(x, *args, **kwargs)`` returns the ``(args, kwargs)`` of the NumPy function's
form (``x`` included), ready for ``rule.bind``. Most methods take their function's
arguments after the array (``x.sum(0, keepdims=True)`` is ``np.sum(x, 0, keepdims=True)``);
``reshape`` and ``transpose`` also accept their tuple spread out.

``ATTRIBUTES`` does the same for attributes read without a call (``x.T``, ``x.shape``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Converted = tuple[tuple[Any, ...], dict[str, Any]]
Convert = Callable[..., Converted]


def _array_first(x: Any, *args: Any, **kwargs: Any) -> Converted:
    """``x.m(a, b, k=v)`` -> ``m(x, a, b, k=v)``."""
    return (x, *args), kwargs


def _spread_tuple(x: Any, *items: Any, **kwargs: Any) -> Converted:
    """``x.m(2, 3)`` and ``x.m((2, 3))`` -> ``m(x, (2, 3))``; ``x.m()`` -> ``m(x)``."""
    if not items:
        return (x,), kwargs
    return (x, items[0] if len(items) == 1 else tuple(items)), kwargs


METHODS: dict[str, tuple[str, Convert]] = {
    # reductions
    "sum": ("sum", _array_first),
    "mean": ("mean", _array_first),
    "prod": ("prod", _array_first),
    "max": ("max", _array_first),
    "min": ("min", _array_first),
    "var": ("var", _array_first),
    "std": ("std", _array_first),
    "cumsum": ("cumsum", _array_first),
    # products
    "dot": ("dot", _array_first),
    "trace": ("trace", _array_first),
    # shape
    "reshape": ("reshape", _spread_tuple),
    "transpose": ("transpose", _spread_tuple),
    "flatten": ("ravel", _array_first),
    "ravel": ("ravel", _array_first),
    "squeeze": ("squeeze", _array_first),
    "swapaxes": ("swapaxes", _array_first),
    "repeat": ("repeat", _array_first),
    "copy": ("copy", _array_first),
    "astype": ("astype", _array_first),
    # elementwise
    "clip": ("clip", _array_first),
    # zero derivative
    "round": ("round", _array_first),
    "argmax": ("argmax", _array_first),
    "argmin": ("argmin", _array_first),
    "all": ("all", _array_first),
    "any": ("any", _array_first),
    # elem
    "cumprod": ("cumprod", _array_first),
}

ATTRIBUTES: dict[str, tuple[str, Convert]] = {
    "T": ("transpose", _array_first),
    "shape": ("shape", _array_first),
    "ndim": ("ndim", _array_first),
    "size": ("size", _array_first),
    "dtype": ("dtype", _array_first),
}
