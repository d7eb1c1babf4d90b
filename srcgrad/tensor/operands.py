"""What the elementwise ops (:mod:`.elementwise`) do with their operands beyond NumPy:
a Python float (or an int that the dtype holds exactly) as a shared read-only 0-d array
of the tensor's dtype, and PyTorch's message for shapes that do not broadcast."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.fp_errors import quietly

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

# A Python float meeting a float tensor is cast to the tensor's dtype anyway (it is a weak
# scalar, as in PyTorch), but NumPy does that cast on every call at about the cost of the
# operation itself on small arrays; a read-only 0-d array of the tensor's dtype gives the
# same result at half the time, forward and in the backward that saves it.
# (one dict per dtype, the two usual ones at hand: hashing a dtype costs as much as the
# lookup itself)
SCALAR_ARRAYS: dict[np.dtype, dict[float, np.ndarray]] = {_F32: {}, _F64: {}}
S32, S64 = SCALAR_ARRAYS[_F32], SCALAR_ARRAYS[_F64]


def scalars(dtype: np.dtype) -> dict[float, np.ndarray]:
    """The cache of shared 0-d arrays of ``dtype``."""
    return SCALAR_ARRAYS.setdefault(dtype, {})


def scalar_array(value: float, dtype: np.dtype) -> Any:
    """``value`` as a shared 0-d array of ``dtype`` (``value`` itself for the zeros,
    whose sign the cache key cannot tell apart, and for nan, which never matches)."""
    if value == 0 or value != value:
        return value
    cache = scalars(dtype)
    if len(cache) > 4096:  # a schedule of ever-new constants: start over
        cache.clear()
    array = quietly(np.array, value, dtype)  # (1e300 is inf in float32: a value, as in PyTorch)
    array.flags.writeable = False
    cache[value] = array
    return array


def broadcast_message(x: Any, y: Any) -> str:
    sx, sy = np.shape(x), np.shape(y)
    for k in range(1, max(len(sx), len(sy)) + 1):
        a = sx[-k] if k <= len(sx) else 1
        b = sy[-k] if k <= len(sy) else 1
        if a != b and a != 1 and b != 1:
            return (f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {max(len(sx), len(sy)) - k}")
    return f"shapes {sx} and {sy} cannot be broadcast together"
