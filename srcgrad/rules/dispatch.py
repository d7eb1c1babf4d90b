"""Make srcgrad's own primitives dispatch like NumPy functions do (NEP 18).

NumPy functions hand a call on a foreign array type (a runtime Tensor, a compiler
symbolic value) to that type's ``__array_function__``. The helper primitives the rules use
(``unbroadcast``, ``unreduce``, ``scatter_add``, ...) and the primitives users register with
``sg.defvjp`` must do the same, so that a rule body run on Tensors records a graph and run
on symbolic values records IR. :func:`dispatching` wraps a plain NumPy implementation so it
offers the call to every overriding argument first, exactly as NumPy's own functions do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

_NDARRAY_HANDLER = np.ndarray.__array_function__


def _overriding(value: Any) -> bool:
    handler = getattr(type(value), "__array_function__", None)
    return handler is not None and handler is not _NDARRAY_HANDLER


def _candidates(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[Any]:
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


# Argument types that never override NumPy: the hot path (emitted code calling a helper on
# ndarrays and floats, thousands of times per gradient) checks only these and skips the scan.
_PLAIN = frozenset({np.ndarray, float, int, bool, type(None), slice, str, np.float64,
                    np.float32, np.int64, np.bool_, np.dtype})


def _plain(value: Any) -> bool:
    kind = type(value)
    if kind in _PLAIN:
        return True
    # one level of nesting (a tuple of shapes): overriding_args looks no deeper either
    return kind is tuple and all(type(v) in _PLAIN or type(v) is tuple for v in value)


def overriding_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Arguments whose type overrides NumPy's dispatch, subclasses before superclasses."""
    found: list[Any] = []
    for a in _candidates(args, kwargs):
        if _overriding(a) and all(type(a) is not type(f) for f in found):
            found.append(a)
    found.sort(key=lambda a: -len(type(a).__mro__))
    return found


def dispatching(impl: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``impl`` so foreign array types see the call through ``__array_function__``."""

    @functools.wraps(impl)
    def primitive(*args: Any, **kwargs: Any) -> Any:
        if all(map(_plain, args)) and (not kwargs or all(map(_plain, kwargs.values()))):
            return impl(*args, **kwargs)
        overriders = overriding_args(args, kwargs)
        if overriders:
            types = tuple({type(a) for a in overriders})
            for a in overriders:
                result = type(a).__array_function__(a, primitive, types, args, kwargs)
                if result is not NotImplemented:
                    return result
            names = ", ".join(t.__name__ for t in types)
            raise TypeError(f"{impl.__name__}: no implementation for argument types {names}")
        return impl(*args, **kwargs)

    primitive.__srcgrad_impl__ = impl  # type: ignore[attr-defined]
    return primitive
