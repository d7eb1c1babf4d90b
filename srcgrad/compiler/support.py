"""Small run-time helpers the emitted code imports (the compiler's, not NumPy math).

- ``seed_one(out)``: the cotangent ``1`` for ``grad``'s one-element result (raises the
  user-facing error for anything else);
- ``like(d, x)``: the gradient ``d`` cast back to argument ``x``'s type, shape and dtype
  (Python float in, Python float out; float32 stays float32; a fresh writable array);
- ``checked_seed(seed, shape)``: ``vjp``'s seed, after checking it is nested like the
  function's tuple or list result (a wrong seed would otherwise be read partly, silently);
- ``stack_list(xs, axis)`` / ``unstack(x, axis)``: ``np.stack`` of a list built at run time
  (``hs.append(h)`` in a loop) and its adjoint, the list of slices along ``axis``;
- ``add_items(xs, ys)``: two adjoints of one such list summed item by item (``+`` on
  lists would concatenate them);
- ``is_none(x)``: ``x is None``, for a value whose type the generic version does not know.
- ``call_method(obj, name, *args)``: a method of an object that a call without a rule made
  at run time (``np.random.RandomState(0).randn(3)``), called as the user wrote it.
- ``as_python(result, *args)``: NumPy's ``result`` of a fast Python spelling's fallback
  (backend/floats.py), as the Python float that spelling gives when every argument is a
  Python number (a value whose type was unknown when compiling, such as a tangent).

``checked_seed``, ``stack_list`` and ``unstack`` dispatch like NumPy functions, so rule
bodies (and derived code being differentiated again) can call them on symbolic values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules.dispatch import dispatching, foreign

_NUMBERS = (float, int, bool)
# Python's and NumPy's own number and array types: never foreign, so ``like`` (called on
# every gradient a derivative returns) skips the scan for a foreign type's protocol on them
_OWN = frozenset({float, int, bool, np.float64, np.float32, np.float16, np.ndarray})


def as_python(result: Any, *args: Any) -> Any:
    """``float(result)`` when every argument is a Python number, else ``result``."""
    if all(type(a) in _NUMBERS for a in args) and np.ndim(result) == 0:
        return float(result)
    return result


def number_sign(x: float) -> float:
    """``np.sign`` of a Python float, as a Python float (0.0 for either zero, NaN for NaN):
    the emitted spelling where the argument is an expression, not a name."""
    return 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0 if x == 0.0 else x


def seed_one(out: Any) -> Any:
    """``1`` shaped like the one-element ``out``; SrcGradError if it has more elements."""
    if type(out) is float:
        return 1.0
    # the shape, not np.size: on a lazy (Dask) result that would compute the forward pass
    size = np.size(out) if type(out) in _OWN or not foreign(out) else math.prod(out.shape)
    if size != 1:
        raise SrcGradError(
            f"sg.grad needs a function whose result has exactly one element; this result has "
            f"shape {np.shape(out)}.",
            advice="Reduce it (e.g. .sum()) or use sg.vjp(f) with a seed shaped like the "
                   "result.")
    if isinstance(out, np.generic):
        # a NumPy scalar's seed is one too (np.ones_like would make a 0-d array, and every
        # number of the reverse sweep computed from it a 0-d array: ten times slower)
        return out.dtype.type(1)
    return np.ones_like(out)


_SCALARS = frozenset({float, np.float64, np.float32})


def like(d: Any, x: Any) -> Any:
    """``d`` with the type, shape and dtype of argument ``x``; a foreign (Dask, CuPy)
    gradient stays of its library, only its shape and dtype follow ``x``'s."""
    if type(d) is type(x) and type(d) in _SCALARS:  # (one number's gradient: at once)
        return d
    t = type(x)
    own = type(d) in _OWN
    if t is float:
        if own:
            return float(d)
        if foreign(d):
            return np.reshape(d, ())
        if getattr(type(d), "__srcgrad_primitives__", False):
            return d  # a tangent being traced (forward mode over this cast): it passes as is
        return float(d)
    if (not own and foreign(d)) or (t not in _OWN and foreign(x)):
        return _foreign_like(d, x)
    if isinstance(x, np.generic):
        if getattr(type(d), "__srcgrad_primitives__", False):
            return np.reshape(d, ())  # a tangent being traced: the cast is left to run time
        return t(np.reshape(d, ()))
    if t is np.ndarray:
        if (type(d) is not np.ndarray or d.dtype != x.dtype or d.shape != x.shape
                or not d.flags.writeable):
            d = np.array(np.broadcast_to(d, x.shape), dtype=x.dtype)
        return d
    return d


def _foreign_like(d: Any, x: Any) -> Any:
    """``like`` for a foreign gradient or argument: broadcast and cast with calls that
    dispatch (``float()`` or ``np.array`` would compute a Dask array or copy a CuPy one to
    the host), so a float argument's gradient is a 0-d array of the gradient's library."""
    shape = tuple(getattr(x, "shape", ()))
    if tuple(getattr(d, "shape", ())) != shape:
        d = np.broadcast_to(d, shape)
    dtype = getattr(x, "dtype", None)
    if dtype is not None and d.dtype != dtype:
        d = d.astype(dtype)
    return d


def zeros_of(x: Any) -> Any:
    """Zeros of ``x``'s type and shape: the gradient of an unused argument."""
    if type(x) is float:
        return 0.0
    return like(np.zeros_like(x), x)


@dispatching
def checked_seed(seed: Any, shape: Any) -> Any:
    """``seed`` itself, if it is nested like a result of ``shape`` (``None`` for one value,
    a tuple of item shapes for a tuple or list); SrcGradError naming the first mismatch."""
    _check_seed(seed, shape, "seed")
    return seed


def _check_seed(seed: Any, shape: Any, where: str) -> None:
    if shape is None:
        return  # one result value: any seed (its shape is the rules' business)
    if not isinstance(seed, (tuple, list)) or len(seed) != len(shape):
        found = (f"a {type(seed).__name__} of {len(seed)} items"
                 if isinstance(seed, (tuple, list)) else f"a {type(seed).__name__}")
        raise SrcGradError(
            f"sg.vjp: {where} is {found}, but the function's result holds a tuple or list "
            f"of {len(shape)} items there.",
            advice="Pass a seed nested exactly like the function's result (one cotangent "
                   "per returned value).")
    for k, (item, item_shape) in enumerate(zip(seed, shape)):
        _check_seed(item, item_shape, f"{where}[{k}]")


@dispatching
def seed_of_shape(seed: Any, shape: tuple[int, ...]) -> Any:
    """``seed`` (a list or tuple of numbers read as the array it makes), if it is a number or
    array of the result's ``shape``; SrcGradError otherwise. Without this check a seed of
    another shape failed inside the emitted code with NumPy's error, or was broadcast
    against the derivative into an answer of the wrong meaning (an array seed of a scalar
    result)."""
    return _of_shape(seed, shape, "sg.vjp: the seed", "the function's result there",
                     "a seed shaped like the function's result (a float or 0-d array for a "
                     "scalar result)")


@dispatching
def tangent_of_shape(tangent: Any, shape: tuple[int, ...]) -> Any:
    """``tangent``, checked like a seed against the shape of the argument it moves."""
    return _of_shape(tangent, shape, "sg.jvp: the tangent", "the argument it moves",
                     "a tangent shaped like the argument (a float for a float)")


def _of_shape(value: Any, shape: tuple[int, ...], what: str, against: str,
              advice: str) -> Any:
    if type(value) in (list, tuple):
        value = np.asarray(value)
    found = getattr(value, "shape", None)
    if found is None and isinstance(value, (float, int)) and not isinstance(value, bool):
        found = ()
    if found is None or tuple(found) != tuple(shape):
        kind = f"of shape {tuple(found)}" if found is not None else f"a {type(value).__name__}"
        raise SrcGradError(f"{what} is {kind}, but {against} has shape {tuple(shape)}.",
                           advice=f"Pass {advice}.")
    return value


@dispatching
def stack_list(xs: Any, axis: int = 0) -> Any:
    """``np.stack`` of a list whose length is known only at run time."""
    return np.stack(xs, axis)


@dispatching
def unstack(x: Any, axis: int = 0) -> list[Any]:
    """The list of ``x``'s slices along ``axis`` (the adjoint of ``stack_list``)."""
    return list(np.moveaxis(x, axis, 0))


@dispatching
def add_items(xs: Any, ys: Any) -> list[Any]:
    """``[x + y for x, y in zip(xs, ys)]``: the sum of two adjoints of one run-time list."""
    return [x + y for x, y in zip(xs, ys, strict=True)]


def is_none(x: Any) -> bool:
    """``x is None``: the generic version's run-time test (specialised versions fold it)."""
    return x is None


def call_method(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``obj.name(*args, **kwargs)``: an opaque call (its result gets no derivative; the
    soundness check refuses one that a differentiated value reaches)."""
    return getattr(obj, name)(*args, **kwargs)


def update_if_fits(ufunc: Any, a: np.ndarray, b: Any) -> np.ndarray:
    """``ufunc(a, b)`` written into ``a`` when ``b`` broadcasts into ``a``'s shape (a bias
    row added to a fresh matrix), else a new array: the passes proved ``a`` a fresh array
    nothing else reads, of the result's dtype, but not that ``b`` never widens it
    (``passes/accumulate.py``). Writing into ``a`` skips a new large array, which the
    allocator maps fresh and the first write page-faults in."""
    shape, other = a.shape, b.shape  # (b: a typed ndarray, as a is)
    start = len(shape) - len(other)
    if other != shape[start:]:  # (the common case first: a bias row, another matrix)
        if start < 0 or any(m != n and m != 1 for n, m in zip(shape[start:], other)):
            return ufunc(a, b)  # type: ignore[no-any-return]
    return ufunc(a, b, a)  # type: ignore[no-any-return]
