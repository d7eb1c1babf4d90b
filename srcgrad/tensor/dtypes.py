"""The runtime's dtypes and PyTorch's type promotion (bottom of the tensor layer).

``sg.float32`` & co. are :class:`DType` objects wrapping a NumPy dtype, so ``t.dtype``
prints like PyTorch's (``srcgrad.float32``). :func:`result_type` is PyTorch's promotion:
tensors with dimensions outrank 0-d tensors, which outrank Python numbers, and a
higher *category* (bool < integer < floating) from a lower rank only lifts the result to
that category (``int64 tensor * 0.5 -> float32``, ``float32[n] + float64 0-d -> float32``).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class DType:
    """A runtime dtype: PyTorch's name, NumPy's storage type."""

    __slots__ = ("name", "np", "is_floating_point", "itemsize")

    def __init__(self, name: str, np_dtype: Any) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"srcgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return other is self
        try:
            return np.dtype(other) == self.np  # type: ignore[arg-type]
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.np)


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL} | {"float": float32, "double": float64, "half": float16,
                                        "long": int64, "int": int32}

DEFAULT_FLOAT = np.dtype(np.float32)
LEGACY_NAMES = {  # PyTorch's legacy type names, used in its error messages
    "float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor",
    "int8": "CharTensor", "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor",
    "uint8": "ByteTensor", "bool": "BoolTensor",
}
TITLE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
               "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
               "bool": "Bool"}


def from_numpy(np_dtype: np.dtype) -> DType:
    """The runtime dtype of a NumPy dtype (TypeError for one the runtime cannot hold)."""
    found = _BY_NP.get(np_dtype)
    if found is None:
        raise TypeError(f"srcgrad tensors cannot hold NumPy dtype {np_dtype}; use one of "
                        f"{', '.join(d.name for d in ALL)}")
    return found


def to_numpy(dtype: Any) -> np.dtype:
    """Accept ``sg.float32``, ``np.float32``, ``"float32"`` or ``float``; give NumPy's dtype."""
    if isinstance(dtype, DType):
        return dtype.np
    if dtype is float:
        return DEFAULT_FLOAT
    if isinstance(dtype, str) and dtype in _BY_NAME:
        return _BY_NAME[dtype].np
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"not a dtype: {dtype!r}; use srcgrad.float32, srcgrad.float64, "
                        "srcgrad.int64 or srcgrad.bool") from None
    from_numpy(np_dtype)
    return np_dtype


# --- PyTorch's promotion ------------------------------------------------------------

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def _promote(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    if a is None:
        return b
    if b is None or a is b:
        return a
    ka, kb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ka != kb and max(ka, kb) == 2:  # an integer meeting a float takes the float's type
        return a if ka == 2 else b
    return np.promote_types(a, b)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """c10's combine_categories: a lower rank lifts the category, never the width."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return _promote(higher, lower)
    return higher


def scalar_dtype(value: Any) -> np.dtype:
    """The dtype PyTorch gives a Python number taking part in an operation."""
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return np.dtype(np.int64)
    if isinstance(value, float):
        return DEFAULT_FLOAT
    return np.asarray(value).dtype


def result_type(operands: tuple[Any, ...]) -> np.dtype:
    """PyTorch's result dtype for ``operands`` (ndarrays stand for tensors, else numbers)."""
    dim = zero = wrapped = None
    for op in operands:
        if isinstance(op, np.ndarray):
            if op.ndim:
                dim = _promote(dim, op.dtype)
            else:
                zero = _promote(zero, op.dtype)
        elif op is not None:
            wrapped = _promote(wrapped, scalar_dtype(op))
    found = _combine(dim, _combine(zero, wrapped))
    return found if found is not None else DEFAULT_FLOAT


def floating(np_dtype: np.dtype) -> np.dtype:
    """The float type an op like ``sin`` or true division computes in for ``np_dtype``."""
    return np_dtype if np_dtype.kind == "f" else DEFAULT_FLOAT
