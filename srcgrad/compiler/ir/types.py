"""Abstract types of IR values: what the compiler knows about a value before it runs.

The abstract argument signature (:mod:`srcgrad.compiler.signature`) gives each parameter
one of these; lowering propagates them to every op (by evaluating the primitive on a small
example value of each input's type, so no per-primitive shape logic lives here). They
decide spellings (``math.sin`` for a Python float), when ``unbroadcast`` can be skipped,
and how a gradient is cast back to its argument's type. ``ANY`` means "unknown": the
generic version, which must work for every array type.

    AType("array", 2, "float64")   # a 2-d float64 ndarray
    FLOAT                          # a Python float
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class AType:
    """``kind`` is float | int | bool (Python), scalar (NumPy), array, none, static, any."""

    kind: str
    ndim: int | None = None
    dtype: str | None = None

    def __str__(self) -> str:
        if self.kind == "array":
            return f"array[{self.ndim},{self.dtype}]"
        if self.kind == "scalar":
            return f"np.{self.dtype}"
        return self.kind

    @property
    def known_ndim(self) -> int | None:
        """The number of dimensions, if known (Python and NumPy scalars have 0)."""
        if self.kind in ("float", "int", "bool", "scalar"):
            return 0
        return self.ndim if self.kind == "array" or self.kind == "any" else None

    @property
    def is_python_number(self) -> bool:
        return self.kind in ("float", "int", "bool")

    @property
    def is_integral(self) -> bool:
        """Never differentiated: Python ints and bools, integer and bool arrays/scalars."""
        if self.kind in ("int", "bool", "none", "static"):
            return True
        return self.dtype is not None and np.dtype(self.dtype).kind in "biu"

    @property
    def is_complex(self) -> bool:
        """A complex NumPy scalar or array (srcgrad differentiates real values only)."""
        return self.dtype is not None and np.dtype(self.dtype).kind == "c"


ANY = AType("any")
FLOAT = AType("float")
INT = AType("int")
BOOL = AType("bool")
NONE = AType("none")
STATIC = AType("static")  # a compile-time Python object: shape tuple, dtype, slice
# One number, a Python float or a float64 NumPy scalar, not known which: a loop-carried
# value that starts as a Python float and becomes a NumPy scalar on the next trip
# (``y = 0.0`` then ``y = x * y`` with ``x`` an np.float64). Unknown in kind (so nothing
# chooses a spelling by it) but known to be 0-d (so no shape work is done for it).
NUMBER = AType("any", 0, "float64")


def of_value(value: Any) -> AType:
    """The abstract type of a concrete Python value."""
    if value is None:
        return NONE
    t = type(value)
    if t is bool:
        return BOOL
    if t is int:
        return INT
    if t is float:
        return FLOAT
    if isinstance(value, np.generic):
        return numpy_type("scalar", 0, value.dtype)
    if t is complex:  # known complex, so a derivative through it is refused (soundness)
        return AType("scalar", 0, "complex128")
    if t is np.ndarray:
        return numpy_type("array", value.ndim, value.dtype)
    if isinstance(value, (tuple, list, slice, str, type, np.dtype)) or value is Ellipsis:
        return STATIC
    return ANY


# The types of NumPy values met so far, by (kind, ndim, dtype): type inference reads a
# type off each result of ~100 example runs per compile, and NumPy computes ``dtype.name``
# in Python (a few microseconds each)
_NUMPY_TYPES: dict[tuple[str, int, np.dtype], AType] = {}


def numpy_type(kind: str, ndim: int, dtype: np.dtype) -> AType:
    """``AType(kind, ndim, dtype.name)``, one object per such type."""
    key = (kind, ndim, dtype)
    t = _NUMPY_TYPES.get(key)
    if t is None:
        t = _NUMPY_TYPES[key] = AType(kind, ndim, dtype.name)
    return t


# Example arrays by (ndim, dtype, size): each call gets a fresh copy (a primitive run on it
# may write into it), cheaper than filling a new one
_EXAMPLE_ARRAYS: dict[tuple[int, str, int], np.ndarray] = {}


def example(t: AType, size: int = 2) -> Any:
    """A small concrete value of type ``t`` (None when unknown); arrays have ``size`` along
    every axis."""
    kind = t.kind
    if kind == "array":
        key = (t.ndim, t.dtype, size)
        kept = _EXAMPLE_ARRAYS.get(key)
        if kept is None:
            kept = _EXAMPLE_ARRAYS[key] = np.full((size,) * t.ndim, 0.5, dtype=t.dtype)
        return kept.copy()
    if kind == "float":
        return 0.5
    if kind == "int":
        return 1  # a valid index into the size-2 example arrays
    if kind == "bool":
        return True
    if kind == "scalar" or (kind == "any" and t.ndim == 0 and t.dtype == "float64"):  # NUMBER
        return np.dtype(t.dtype).type(0.5)
    return None


def infer(run: Callable[[], Any]) -> AType:
    """The type of what ``run()`` (a primitive called on example values) returns; ``ANY``
    when it fails. The caller silences NumPy's floating-point errors and warnings around
    its examples (:func:`srcgrad.compiler.type_inference.infer_type`)."""
    try:
        return of_value(run())
    except Exception:
        return ANY


def is_math_function(fn: Any) -> bool:
    """True for ``math.*`` functions and the ``abs`` builtin (Python-float spellings)."""
    return getattr(fn, "__module__", None) == "math" or fn is abs or (
        getattr(math, getattr(fn, "__name__", ""), None) is fn)


def parse(text: str) -> AType:
    """Parse one kind of ``render(types=...)``: float | int | bool | none | np.float64 |
    np.float32 | array[N] | array[N,float32] | other. Raises ValueError."""
    s = text.strip().replace(" ", "")
    simple = {"float": FLOAT, "int": INT, "bool": BOOL, "none": NONE, "other": ANY}
    if s in simple:
        return simple[s]
    if s.startswith("np.") and s[3:] in ("float64", "float32", "float16", "int64", "int32"):
        return AType("scalar", 0, s[3:])
    if s.startswith("array[") and s.endswith("]"):
        parts = s[6:-1].split(",")
        if 1 <= len(parts) <= 2 and parts[0].isdigit():
            dtype = parts[1] if len(parts) == 2 else "float64"
            try:
                dtype = np.dtype(dtype).name
            except TypeError:
                raise ValueError(f"unknown dtype {parts[1]!r} in {text!r}") from None
            return AType("array", int(parts[0]), dtype)
    raise ValueError(
        f"bad argument kind {text!r}; expected float, int, bool, none, np.float64, "
        "np.float32, array[N], array[N,float32] or other")
