"""Making tensors: ``sg.tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``rand``...

PyTorch's defaults: Python floats give float32, ints int64, bools bool; an ndarray keeps
its dtype (float64 stays float64, as ``torch.tensor(np_array)`` does). Every factory
takes ``dtype=`` and ``requires_grad=``; ``rand``/``randn`` draw from one generator that
``sg.manual_seed`` reseeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from .tensor import Tensor

_GENERATOR = [np.random.default_rng()]


def manual_seed(seed: int) -> np.random.Generator:
    """Reseed the generator ``rand``/``randn`` draw from."""
    _GENERATOR[0] = np.random.default_rng(int(seed))
    return _GENERATOR[0]


def _finish(data: np.ndarray, requires_grad: bool, device: Any = None) -> Tensor:
    if device is not None and str(device).split(":")[0] != "cpu":
        raise RuntimeError(f"srcgrad runs on the CPU only; device {device!r} is not "
                           "available (use device='cpu' or leave it out)")
    t = Tensor._wrap(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               f"gradients (this one is {t.dtype.name})")
        t._rg = True
    return t


def _infer(values: Any, target: np.dtype | None = None) -> np.ndarray:
    """PyTorch's dtype inference for Python data (floats -> float32, ints -> int64).

    With a ``target`` dtype the data converts straight to it: Python floats are doubles,
    and a detour through float32 would round ``-1.2`` before a float64 cast.
    """
    if isinstance(values, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(values)):
        values = _tensors_to_lists(values)
    try:
        arr = np.array(values)
    except ValueError:
        raise ValueError("sg.tensor: the data is not rectangular (nested sequences of "
                         "different lengths); every row must have the same length") from None
    if target is not None and arr.dtype.kind in "fiub":
        return arr.astype(target, copy=False)
    if arr.dtype.kind == "f" and not isinstance(values, np.ndarray):
        return arr.astype(np.float32)
    if arr.dtype.kind in "iu" and not isinstance(values, np.ndarray):
        return arr.astype(np.int64)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"Could not infer dtype of {type(values).__name__}")
    return arr


def _flat(values: Any) -> Any:
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _tensors_to_lists(values: Any) -> Any:
    if isinstance(values, Tensor):
        return values._data
    if isinstance(values, (list, tuple)):
        return [_tensors_to_lists(v) for v in values]
    return values


_NDARRAY_FUNCTION = np.ndarray.__array_function__
_FOREIGN_MESSAGE = (
    "sg.tensor: {kind} is an array of another library (it has its own "
    "__array_function__); the runtime (sg.Tensor) computes on NumPy in this process, so "
    "making a Tensor of it would compute or copy it to the host, and np.array() of a lazy "
    "array may even change its dtype. Differentiate the function itself with "
    "sg.grad/sg.value_and_grad, which stays lazy on Dask and on the device on CuPy, or "
    "convert explicitly: sg.tensor(np.asarray(x)) (for CuPy: x.get())")


def _foreign_array(data: Any) -> bool:
    """An array of another library (Dask, CuPy, ...): overrides NumPy's functions."""
    handler = getattr(type(data), "__array_function__", None)
    return handler is not None and handler is not _NDARRAY_FUNCTION


def tensor(data: Any, *, dtype: Any = None, requires_grad: bool = False, device: Any = None
           ) -> Tensor:
    """A new leaf holding a copy of ``data``."""
    target = None if dtype is None else dtypes.to_numpy(dtype)
    if isinstance(data, Tensor):
        arr = data._data.copy()
    elif isinstance(data, np.ndarray):
        arr = np.array(data, copy=True)
        if arr.dtype.kind not in "fiub":
            raise TypeError(f"can't convert np.ndarray of type {arr.dtype}. The only "
                            "supported types are: float64, float32, float16, int64, int32, "
                            "int16, int8, uint8, and bool.")
    elif isinstance(data, np.generic):
        arr = np.array(data)
    elif _foreign_array(data):
        raise TypeError(_FOREIGN_MESSAGE.format(kind=f"{type(data).__module__}."
                                                     f"{type(data).__qualname__}"))
    else:
        arr = _infer(data, target)
    if target is not None:
        arr = arr.astype(target, copy=False)
    dtypes.from_numpy(arr.dtype)
    return _finish(arr, requires_grad, device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory."""
    return Tensor._wrap(array)


def _shape(size: tuple[Any, ...]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _dtype(dtype: Any, default: Any = dtypes.DEFAULT_FLOAT) -> np.dtype:
    return np.dtype(default) if dtype is None else dtypes.to_numpy(dtype)


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None
          ) -> Tensor:
    """A tensor of zeros of shape ``size`` (float32 unless ``dtype``), as ``torch.zeros``."""
    return _finish(np.zeros(_shape(size), dtype=_dtype(dtype)), requires_grad, device)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None
         ) -> Tensor:
    """A tensor of ones of shape ``size`` (float32 unless ``dtype``), as ``torch.ones``."""
    return _finish(np.ones(_shape(size), dtype=_dtype(dtype)), requires_grad, device)


def empty(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None
          ) -> Tensor:
    """An uninitialised tensor of shape ``size``, as ``torch.empty`` (here: zeros)."""
    return _finish(np.zeros(_shape(size), dtype=_dtype(dtype)), requires_grad, device)


def full(size: Any, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value``, as ``torch.full``."""
    if dtype is None:
        dtype = _infer(fill_value).dtype
    return _finish(np.full(_shape((size,)), fill_value, dtype=_dtype(dtype)), requires_grad, device)


def _like(t: Any, dtype: Any) -> np.dtype:
    return t._data.dtype if dtype is None else dtypes.to_numpy(dtype)


def zeros_like(input: Any, dtype: Any = None, requires_grad: bool = False,  # noqa: A002
               device: Any = None) -> Tensor:
    """Zeros with ``input``'s shape (and dtype unless ``dtype``)."""
    return _finish(np.zeros(input.shape, dtype=_like(input, dtype)), requires_grad, device)


def ones_like(input: Any, dtype: Any = None, requires_grad: bool = False,  # noqa: A002
              device: Any = None) -> Tensor:
    """Ones with ``input``'s shape (and dtype unless ``dtype``)."""
    return _finish(np.ones(input.shape, dtype=_like(input, dtype)), requires_grad, device)


def full_like(input: Any, fill_value: Any, dtype: Any = None,  # noqa: A002
              requires_grad: bool = False, device: Any = None) -> Tensor:
    """``fill_value`` with ``input``'s shape (and dtype unless ``dtype``)."""
    data = np.full(input.shape, fill_value, dtype=_like(input, dtype))
    return _finish(data, requires_grad, device)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """``[start, end)`` by ``step``; int64 for integer arguments, else float32."""
    if end is None:
        start, end = 0, start
    numbers = (start, end, step)
    is_int = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in numbers)
    default = np.int64 if is_int else dtypes.DEFAULT_FLOAT
    data = np.arange(start, end, step, dtype=np.float64 if not is_int else np.int64)
    return _finish(data.astype(_dtype(dtype, default)), requires_grad, device)


def linspace(start: float, end: float, steps: int, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (float32)."""
    return _finish(np.linspace(start, end, steps).astype(_dtype(dtype)), requires_grad, device)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False,
        device: Any = None) -> Tensor:
    """The ``n`` x ``m`` identity matrix (``m`` defaults to ``n``)."""
    return _finish(np.eye(n, m, dtype=_dtype(dtype)), requires_grad, device)


def rand(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None,
         generator: Any = None) -> Tensor:
    """Uniform samples in [0, 1)."""
    data = _GENERATOR[0].random(_shape(size)).astype(_dtype(dtype))
    return _finish(data, requires_grad, device)


def randn(*size: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None,
          generator: Any = None) -> Tensor:
    """Standard normal samples."""
    data = _GENERATOR[0].standard_normal(_shape(size)).astype(_dtype(dtype))
    return _finish(data, requires_grad, device)


def randint(low: int, high: int | None = None, size: Any = (), dtype: Any = None,
            requires_grad: bool = False, device: Any = None) -> Tensor:
    """Integers drawn uniformly from ``[low, high)`` (int64), from the ``manual_seed`` generator."""
    if high is None:
        low, high = 0, low
    data = _GENERATOR[0].integers(low, high, size=_shape((size,)))
    return _finish(data.astype(_dtype(dtype, np.int64)), requires_grad, device)


def generator() -> np.random.Generator:
    """The generator ``sg.manual_seed`` seeds (``rand``, ``randn``, ``nn`` init, dropout)."""
    return _GENERATOR[0]
