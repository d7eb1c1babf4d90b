"""Make srcgrad's own primitives dispatch like NumPy functions do (NEP 18).

NumPy functions hand a call on a foreign array type (a runtime Tensor, a compiler
symbolic value) to that type's ``__array_function__``. The helper primitives the rules use
(``unbroadcast``, ``unreduce``, ``scatter_add``, ...) and the primitives users register with
``sg.defvjp`` must do the same, so that a rule body run on Tensors records a graph and run
on symbolic values records IR. :func:`dispatching` wraps a plain NumPy implementation so it
offers the call to every overriding argument first, exactly as NumPy's own functions do.

Only types that know srcgrad's primitives are offered them: a class opts in with the class
attribute ``__srcgrad_primitives__ = True`` (the runtime's Tensor, the compiler's symbolic
values, the tests' recording array). Any other array type (Dask, CuPy, ...) does not know
``unbroadcast``: Dask would warn, compute every input into the client and run the helper on
NumPy; CuPy would return NotImplemented. For those the implementation itself runs, and it is
written with NumPy functions and operators that dispatch to the array's own library
(DESIGN.md principle 13), so a Dask gradient stays lazy and a CuPy one stays on the device.
:func:`foreign` tells an implementation when it holds such an array (to take a dispatching
formulation instead of an ndarray-only fast path); :func:`as_array` is ``np.asarray`` that
leaves such an array alone.
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


def _knows_primitives(value: Any) -> bool:
    return getattr(type(value), "__srcgrad_primitives__", False) is True


def foreign(value: Any) -> bool:
    """Is ``value`` an array of another library (Dask, CuPy, ...): one that overrides NumPy's
    dispatch but does not know srcgrad's primitives? Their implementations then must not
    convert it to an ndarray, allocate with NumPy or write in place."""
    return type(value) is not np.ndarray and _overriding(value) and not _knows_primitives(value)


def as_array(value: Any) -> Any:
    """``np.asarray(value)``, except that a foreign array stays what it is (converting a Dask
    array computes it; converting a CuPy array copies it to the host or fails)."""
    if type(value) is np.ndarray or not foreign(value):
        return np.asarray(value)
    return value


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
    """Arguments whose type overrides NumPy's dispatch and knows srcgrad's primitives,
    subclasses before superclasses."""
    found: list[Any] = []
    for a in _candidates(args, kwargs):
        if _overriding(a) and _knows_primitives(a) and all(type(a) is not type(f) for f in found):
            found.append(a)
    found.sort(key=lambda a: -len(type(a).__mro__))
    return found


def dispatching(impl: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``impl`` so types that know srcgrad's primitives see the call through their
    ``__array_function__``; with any other argument types ``impl`` runs itself."""

    @functools.wraps(impl)
    def primitive(*args: Any, **kwargs: Any) -> Any:
        # _plain written out inline: emitted code calls helpers about fifteen times per
        # gradient on ndarrays, floats and shape tuples, and a function call per argument
        # (all(map(_plain, args))) cost as much as the helper's own work
        for a in args:
            kind = type(a)
            if kind not in _PLAIN:
                if kind is not tuple:
                    break
                for v in a:
                    if type(v) not in _PLAIN and type(v) is not tuple:
                        break
                else:
                    continue
                break
        else:
            if not kwargs:
                return impl(*args)
            if all(map(_plain, kwargs.values())):
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
