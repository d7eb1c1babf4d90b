"""Array factories whose values depend on their arguments: ``full full_like linspace arange``.

They were once filed with the zero-derivative factories (``zeros``, ``eye``), which made a
fill value or a range's end points silently constant. Each is differentiable in what
sets its values, and only in that (a shape, a count, a dtype are static parameters):

===========  ===================================================================
full         fill_value: ``unbroadcast(g, fill_value_shape)``            (linear)
full_like    fill_value: likewise; ``x`` only gives the shape and dtype   (linear)
linspace     ``start + (stop - start) * w`` with ``w = linspace(0, 1, num, endpoint)``
             (``w = [0]`` for ``num=1``, ``k / num`` for ``endpoint=False``):
             start: ``sum(g * (1 - w), axis=0)``, stop: ``sum(g * w, axis=0)``;
             linear in (start, stop) jointly, so forward mode applies it to the tangents
arange       ``start + k * step``: start: ``sum(g)``, step: ``sum(g * k)``; ``stop``
             only sets the length (zero derivative). ``np.arange(n)`` binds ``n`` to
             ``start`` with ``stop=None``: it is the stop, and gets no derivative
===========  ===================================================================

Helper primitives (zero derivative): ``linspace_weights(c, num, endpoint)`` (``w`` shaped
to multiply ``linspace``'s output cotangent ``c``), ``range_index(c)`` (``k`` for ``c``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .helpers import unbroadcast
from .registry import LINEAR, NONDIFF, defrule
from .shape import astype


def _float_dtype(c: Any) -> Any:
    dtype = np.result_type(c)
    return dtype if np.issubdtype(dtype, np.floating) else np.float64


@dispatching
def linspace_weights(c: Any, num: int, endpoint: bool = True) -> Any:
    """``linspace(0, 1, num, endpoint)`` along axis 0 of an array shaped like ``c``."""
    w = np.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=_float_dtype(c))
    return np.reshape(w, (num,) + (1,) * (np.ndim(c) - 1))


@dispatching
def range_index(c: Any) -> Any:
    """``0, 1, ..., len(c) - 1`` in ``c``'s (floating) dtype: the ``k`` of ``arange``."""
    return np.arange(np.shape(c)[0], dtype=_float_dtype(c))


defrule("linspace_weights", linspace_weights, inputs=("c",), params=("num", "endpoint"),
        kind=NONDIFF, form="c, num, endpoint=True")
defrule("range_index", range_index, inputs=("c",), kind=NONDIFF)

# np.full, np.arange (and np.full_like's fill value) do not dispatch through NumPy's
# protocols: these wrappers do, so a rule body (forward mode applies the rule to tangents)
# records them on Tensors and symbolic values like any other primitive.
@dispatching
def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """``np.full(shape, fill_value, dtype)``."""
    return np.full(shape, fill_value, dtype=dtype)


@dispatching
def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    """``np.full_like(x, fill_value, dtype)``."""
    return np.full_like(x, fill_value, dtype=dtype)


@dispatching
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """``np.arange(start, stop, step, dtype)``."""
    return np.arange(start, stop, step, dtype=dtype)


def _fill_vjp(g: Any, fill_value_shape: Any, fill_value_dtype: Any) -> Any:
    return astype(unbroadcast(g, fill_value_shape), fill_value_dtype)


defrule("full", full, inputs=("fill_value",), params=("shape", "dtype"), kind=LINEAR,
        form="shape, fill_value, dtype=None", aliases=(np.full,),
        vjp={"fill_value": _fill_vjp}, fresh=True,
        pytorch=("sg.full",))
defrule("full_like", full_like, inputs=("x", "fill_value"), params=("dtype",),
        kind=LINEAR, form="x, fill_value, dtype=None", aliases=(np.full_like,),
        vjp={"fill_value": _fill_vjp}, fresh=True,
        pytorch=("sg.full_like",))

# ``broadcasts``: start and stop broadcast against each other (the engine unbroadcasts)
defrule("linspace", np.linspace, inputs=("start", "stop"), params=("num", "endpoint"),
        kind=LINEAR, broadcasts=True, form="start, stop, num=50, endpoint=True",
        vjp={"start": lambda g, num, endpoint:
             np.sum(g * (1.0 - linspace_weights(g, num, endpoint)), axis=0),
             "stop": lambda g, num, endpoint:
             np.sum(g * linspace_weights(g, num, endpoint), axis=0)},
        pytorch=("sg.linspace",))


def _arange_start_vjp(g: Any, stop: Any, start_dtype: Any) -> Any:
    # np.arange(n) binds n to start: then it is the stop (no derivative)
    total = np.sum(g) if stop is not None else np.sum(g) * 0.0
    return astype(total, start_dtype)


def _arange_start_jvp(t: Any, out: Any, stop: Any) -> Any:
    return np.zeros_like(out) + (t if stop is not None else t * 0.0)


defrule("arange", arange, inputs=("start", "step"), params=("stop", "dtype"),
        form="start, stop=None, step=None, dtype=None", aliases=(np.arange,),
        vjp={"start": _arange_start_vjp,
             "step": lambda g, step_dtype: astype(np.sum(g * range_index(g)), step_dtype)},
        jvp={"start": _arange_start_jvp, "step": lambda t, out: t * range_index(out)},
        pytorch=("sg.arange",))
