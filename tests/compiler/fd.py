"""Central finite differences: the numerical reference the compiler's gradients are checked
against (the corpus tests, the error and aliasing tests).

Everything here works in float64 on a copy of the arguments, perturbing one element at a
time with a step relative to its size, and returns plain float64 arrays shaped like the
argument (a 0-d array for a scalar argument), whatever the argument's own type.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-6


def scalarize(out: Any, seed: Any = None) -> float:
    """``<seed, out>`` summed over a tuple result; ``out`` itself when there is no seed."""
    if seed is None:
        return float(np.asarray(out, dtype=np.float64).reshape(()))
    if isinstance(out, tuple):
        return sum(scalarize(o, s) for o, s in zip(out, seed, strict=True))
    return float(np.sum(np.asarray(out, dtype=np.float64) * np.asarray(seed, dtype=np.float64)))


def resolve_wrt(fn: Callable[..., Any], wrt: Any, nargs: int) -> list[int | str]:
    """Positions (ints) or keyword names of the arguments ``wrt`` names, in ``wrt``'s order.

    A name of a parameter passed positionally becomes its position; a name of one passed by
    keyword stays a name.
    """
    names = list(inspect.signature(fn).parameters)
    places: list[int | str] = []
    for w in wrt if isinstance(wrt, tuple) else (wrt,):
        if isinstance(w, str) and names.index(w) < nargs:
            places.append(names.index(w))
        else:
            places.append(w)
    return places


def numeric_gradient(fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
                     place: int | str, seed: Any = None, eps: float = EPS) -> np.ndarray:
    """d<seed, fn(*args, **kwargs)> / d(argument at ``place``), by central differences."""
    args64 = [_as_float64(a) for a in args]
    kwargs64 = {k: _as_float64(v) for k, v in kwargs.items()}
    target = np.array(args64[place] if isinstance(place, int) else kwargs64[place],
                      dtype=np.float64)
    grad = np.zeros_like(target)

    original = args64[place] if isinstance(place, int) else kwargs64[place]

    def value_at(point: np.ndarray) -> float:
        value = _like(original, point)
        call_args = list(args64)
        call_kwargs = dict(kwargs64)
        if isinstance(place, int):
            call_args[place] = value
        else:
            call_kwargs[place] = value
        return scalarize(fn(*call_args, **call_kwargs), seed)

    flat = target.reshape(-1)
    for i in range(flat.size):
        h = eps * max(1.0, abs(flat[i]))
        saved = flat[i]
        flat[i] = saved + h
        up = value_at(target.copy())
        flat[i] = saved - h
        down = value_at(target.copy())
        flat[i] = saved
        grad.reshape(-1)[i] = (up - down) / (2.0 * h)
    return grad


def numeric_second_differences(fn: Callable[..., Any], args: Sequence[Any],
                               kwargs: dict[str, Any], place: int,
                               eps: float = 1e-4) -> np.ndarray:
    """d2 fn / dx2 for the argument at ``place`` from ``fn`` alone (no gradient function, so
    the reference owes nothing to srcgrad), shaped ``x.shape + x.shape``. The step is larger
    than the first-order one: the error is ~eps**2 plus ~1e-16 |f| / eps**2."""
    args64 = [_as_float64(a) for a in args]
    original = args64[place]
    point = np.array(original, dtype=np.float64)
    steps = eps * np.maximum(1.0, np.abs(point.reshape(-1)))
    n = point.size

    def at(delta: np.ndarray) -> float:
        call = list(args64)
        call[place] = _like(original, (point.reshape(-1) + delta).reshape(point.shape))
        return scalarize(fn(*call, **kwargs))

    hess = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            ei, ej = np.zeros(n), np.zeros(n)
            ei[i], ej[j] = steps[i], steps[j]
            total = at(ei + ej) - at(ei - ej) - at(ej - ei) + at(-ei - ej)
            hess[i, j] = hess[j, i] = total / (4.0 * steps[i] * steps[j])
    return hess.reshape(point.shape + point.shape)


def _as_float64(value: Any) -> Any:
    """Float arguments in float64 (the reference is always computed in double precision)."""
    if isinstance(value, np.floating):  # before float: np.float64 is a float subclass
        return np.float64(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(np.float64)
    return value


def _like(original: Any, point: np.ndarray) -> Any:
    """``point`` in the type of the argument it replaces (float, NumPy scalar, array)."""
    if isinstance(original, np.generic):  # before float: np.float64 is a float subclass
        return np.float64(point)
    if isinstance(original, float):
        return float(point)
    return point


def assert_close(computed: Any, expected: Any, rtol: float = RTOL, atol: float = ATOL,
                 what: str = "gradient") -> None:
    """``computed`` (any float type) equals ``expected`` within tolerances, same shape."""
    got = np.asarray(computed, dtype=np.float64)
    want = np.asarray(expected, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
