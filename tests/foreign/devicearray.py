"""A CPU stand-in for CuPy's array: what CuPy's NumPy protocols accept and refuse.

No GPU is available to this project's machines, so the gradient code's CuPy readiness is
checked against this type, which behaves like ``cupy.ndarray`` toward NumPy:

- ``__array_function__`` handles NumPy's own public functions only (``np.sum``,
  ``np.linalg.solve``, ...) and returns ``NotImplemented`` for anything else, such as a
  srcgrad helper primitive offered to it (NumPy then raises TypeError);
- ``__array_ufunc__`` handles a plain ufunc call only (``np.add(a, b)``), NotImplemented for
  ``out=`` and for ``.at``/``.reduce``/... (CuPy mirrors few of those);
- ``__array__`` raises (CuPy refuses implicit device-to-host copies), so does ``float()``;
  ``bool()`` of one element is allowed (CuPy synchronises and answers) and counted.

Results stay ``DeviceArray`` (0-d arrays for reductions, as CuPy's). Host arrays are
refused as CuPy refuses them: a ufunc or operator with an ``np.ndarray`` operand (0-d
included) raises TypeError, and so does a NumPy function given one where it dispatches on
its arguments (``np.where(host_mask, x, 0)``, ``np.concatenate([x, host])``). Python numbers
and NumPy scalars mix in freely, and host *index* arrays are accepted where NumPy does not
dispatch on them (``x[host_index]``, ``np.take(x, host_index)``), as CuPy copies those. ``DeviceArray.conversions`` counts ``bool()`` calls, so a test can tell that a
gradient call branched on data only where the program's own ``if``/``while`` does;
``DeviceArray.refused`` lists the functions it was offered and refused.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np


def _numpy_own(func: Any) -> bool:
    """Is ``func`` a public function of NumPy (or of ``np.linalg``/``np.fft``)?"""
    name = getattr(func, "__name__", None)
    return name is not None and any(getattr(mod, name, None) is func
                                    for mod in (np, np.linalg, np.fft))


def _unwrap(value: Any) -> Any:
    if type(value) is DeviceArray:
        return value.data
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _wrap(value: Any) -> Any:
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.dtype):
        return DeviceArray(np.asarray(value))
    if isinstance(value, (list, tuple)):
        return type(value)(_wrap(v) for v in value)
    return value


def _host_array_error(func: Any) -> TypeError:
    name = getattr(func, "__name__", repr(func))
    return TypeError(f"Unsupported type <class 'numpy.ndarray'> in {name} with a DeviceArray "
                     "(host arrays must be copied to the device first)")


class DeviceArray:
    """An array that lives "on the device": NumPy may dispatch to it, never convert it."""

    __array_priority__ = 100.0
    conversions: ClassVar[int] = 0
    refused: ClassVar[list[str]] = []  # functions it answered NotImplemented to, by name

    def __init__(self, data: Any) -> None:
        self.data = np.array(data)

    # --- the protocols, as CuPy answers them ------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed (DeviceArray); "
                        "use .get() to copy to the host")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if not _numpy_own(func):
            DeviceArray.refused.append(getattr(func, "__name__", repr(func)))
            return NotImplemented
        if np.ndarray in types:
            raise _host_array_error(func)
        if not all(issubclass(t, DeviceArray) for t in types):
            return NotImplemented
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or "out" in kwargs:
            return NotImplemented
        if any(type(v) is np.ndarray for v in inputs):
            raise _host_array_error(ufunc)
        return _wrap(ufunc(*_unwrap(inputs), **_unwrap(kwargs)))

    def get(self) -> np.ndarray:
        """The values copied to the host (``cupy.ndarray.get``)."""
        return self.data.copy()

    def __bool__(self) -> bool:
        DeviceArray.conversions += 1
        return bool(self.data)

    def __float__(self) -> float:
        raise TypeError("float() of a DeviceArray: a device-to-host copy srcgrad must not make")

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"DeviceArray({self.data!r})"

    # --- attributes and methods CuPy's array has --------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def T(self) -> DeviceArray:  # noqa: N802 (NumPy's name)
        return DeviceArray(self.data.T)

    def astype(self, dtype: Any, copy: bool = True) -> DeviceArray:
        return DeviceArray(self.data.astype(dtype, copy=copy))

    def copy(self) -> DeviceArray:
        return DeviceArray(self.data.copy())

    def reshape(self, *shape: Any) -> DeviceArray:
        return DeviceArray(self.data.reshape(*shape))

    def sum(self, *args: Any, **kwargs: Any) -> DeviceArray:
        return _wrap(self.data.sum(*_unwrap(args), **_unwrap(kwargs)))

    def __getitem__(self, index: Any) -> DeviceArray:
        return DeviceArray(self.data[_unwrap(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        self.data[_unwrap(index)] = _unwrap(value)

    # --- operators map to ufuncs, so they dispatch like CuPy's -----------------------------
    def __neg__(self) -> Any: return np.negative(self)
    def __pos__(self) -> Any: return np.positive(self)
    def __abs__(self) -> Any: return np.absolute(self)
    def __invert__(self) -> Any: return np.invert(self)
    def __add__(self, o: Any) -> Any: return np.add(self, o)
    def __radd__(self, o: Any) -> Any: return np.add(o, self)
    def __sub__(self, o: Any) -> Any: return np.subtract(self, o)
    def __rsub__(self, o: Any) -> Any: return np.subtract(o, self)
    def __mul__(self, o: Any) -> Any: return np.multiply(self, o)
    def __rmul__(self, o: Any) -> Any: return np.multiply(o, self)
    def __truediv__(self, o: Any) -> Any: return np.true_divide(self, o)
    def __rtruediv__(self, o: Any) -> Any: return np.true_divide(o, self)
    def __floordiv__(self, o: Any) -> Any: return np.floor_divide(self, o)
    def __mod__(self, o: Any) -> Any: return np.remainder(self, o)
    def __pow__(self, o: Any) -> Any: return np.power(self, o)
    def __rpow__(self, o: Any) -> Any: return np.power(o, self)
    def __matmul__(self, o: Any) -> Any: return np.matmul(self, o)
    def __rmatmul__(self, o: Any) -> Any: return np.matmul(o, self)
    def __and__(self, o: Any) -> Any: return np.bitwise_and(self, o)
    def __or__(self, o: Any) -> Any: return np.bitwise_or(self, o)
    def __lt__(self, o: Any) -> Any: return np.less(self, o)
    def __le__(self, o: Any) -> Any: return np.less_equal(self, o)
    def __gt__(self, o: Any) -> Any: return np.greater(self, o)
    def __ge__(self, o: Any) -> Any: return np.greater_equal(self, o)
    def __eq__(self, o: Any) -> Any: return np.equal(self, o)  # type: ignore[override]
    def __ne__(self, o: Any) -> Any: return np.not_equal(self, o)  # type: ignore[override]
    __hash__ = None  # type: ignore[assignment]
