"""Tensor math with PyTorch's names: operators, elementwise functions, reductions, matmul.

Each method picks the rule of the table that computes it and hands it to :mod:`.ops`
(elementwise ops through the fast paths). PyTorch's spellings map onto the rules'
NumPy parameters here: ``dim`` -> ``axis``, ``keepdim`` -> ``keepdims``, ``std``/``var``
with ``correction=1`` by default -> ``ddof``. In-place variants are in :mod:`.inplace`.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..rules import rule_named
from . import dtypes
from . import ops as _ops
from .inplace import InplaceMethods

_binary, _unary, _record = _ops.binary, _ops.unary, _ops.record


def _ew(name: str) -> dict[Any, Any]:
    return _ops.elementwise_specs(name)


def _unary_spec(name: str) -> _ops.Spec:
    return _ops.spec_for(rule_named(name), (True,))


_ADD, _SUB, _MUL, _DIV, _POW = _ew("add"), _ew("subtract"), _ew("multiply"), _ew("divide"), \
    _ew("power")
_REM, _FLOORDIV, _MAXIMUM, _MINIMUM = _ew("remainder"), _ew("floor_divide"), _ew("maximum"), \
    _ew("minimum")
_EQ, _NE, _LT, _LE, _GT, _GE = (_ew(n) for n in ("equal", "not_equal", "less", "less_equal",
                                                  "greater", "greater_equal"))
_AND, _OR, _XOR = _ew("bitwise_and"), _ew("bitwise_or"), _ew("bitwise_xor")
_ATAN2 = _ew("arctan2")

_UNARY = {
    "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "sqrt": "sqrt",
    "abs": "absolute", "tanh": "tanh", "sigmoid": "sigmoid", "relu": "relu",
    "square": "square", "neg": "negative", "exp2": "exp2", "expm1": "expm1",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "asin": "arcsin",
    "acos": "arccos", "atan": "arctan", "sinh": "sinh", "cosh": "cosh", "asinh": "arcsinh",
    "acosh": "arccosh", "atanh": "arctanh", "reciprocal": "reciprocal",
    "sign": "sign", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
    "logical_not": "logical_not",
}
_UNARY_SPECS = {method: _unary_spec(rule) for method, rule in _UNARY.items()}

MaxResult = namedtuple("MaxResult", ["values", "indices"])  # torch.return_types.max


def _axis(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, list) else dim


def _unary_method(method: str) -> Any:
    spec = _UNARY_SPECS[method]

    def fn(self: Any) -> Any:
        return _unary(spec, self)

    fn.__name__ = method
    fn.__doc__ = f"Elementwise ``{method}`` (rule ``{spec.rule.name}``)."
    return fn


def _reduce(self: Any, rule: str, dim: Any, keepdim: bool, **extra: Any) -> Any:
    if dim is None and keepdim and self._data.ndim:
        dim = tuple(range(self._data.ndim))  # PyTorch: keepdim without dim keeps all dims
    return _record(rule_named(rule), (self,), {"axis": _axis(dim), "keepdims": keepdim,
                                               **extra})


def _check_float(self: Any, op: str) -> None:
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"{op}(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: "
                           f"{dtypes.TITLE_NAMES[self.dtype.name]}")


def _matmul_check(a: np.ndarray, b: np.ndarray) -> None:
    """PyTorch's messages for matmul shapes that do not fit."""
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    inner_a = a.shape[-1]
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if inner_a == inner_b:
        return
    if a.ndim == 1 and b.ndim == 1:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if a.ndim == 2 and b.ndim == 1:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({b.shape[0]})")
    rows = int(np.prod(a.shape[:-1])) if b.ndim <= 2 else a.shape[-2]
    ra = f"{rows}x{a.shape[-1]}"
    rb = f"{b.shape[-2]}x{b.shape[-1]}" if b.ndim > 1 else f"{b.shape[0]}x1"
    raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({ra} and {rb})")


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` with PyTorch's node names (Mm/Mv/Dot) and shape errors."""
    tensor = _ops._tm.Tensor
    if not isinstance(b, tensor):
        b = tensor._wrap(np.asarray(b, dtype=a._data.dtype) if not isinstance(b, np.ndarray)
                         else b)
    if not isinstance(a, tensor):
        a = tensor._wrap(np.asarray(a))
    _matmul_check(a._data, b._data)
    return _record(rule_named("matmul"), (a, b))


class MathMethods(InplaceMethods):
    """Operators and math methods of the Tensor."""

    # --- operators ---------------------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return _binary(_ADD, self, other)

    def __radd__(self, other: Any) -> Any:
        return _binary(_ADD, self, other)  # PyTorch: x.add(3); the scalar edge comes second

    def __sub__(self, other: Any) -> Any:
        return _binary(_SUB, self, other)

    def __rsub__(self, other: Any) -> Any:
        return _binary(_SUB, other, self)

    def __mul__(self, other: Any) -> Any:
        return _binary(_MUL, self, other)

    def __rmul__(self, other: Any) -> Any:
        return _binary(_MUL, self, other)

    def __truediv__(self, other: Any) -> Any:
        return _binary(_DIV, self, other)

    def __rtruediv__(self, other: Any) -> Any:
        # PyTorch computes ``3 / x`` as ``x.reciprocal() * 3``
        return _binary(_MUL, _unary(_UNARY_SPECS["reciprocal"], self), other)

    def __floordiv__(self, other: Any) -> Any:
        return _binary(_FLOORDIV, self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _binary(_FLOORDIV, other, self)

    def __mod__(self, other: Any) -> Any:
        return _binary(_REM, self, other)

    def __rmod__(self, other: Any) -> Any:
        return _binary(_REM, other, self)

    def __pow__(self, other: Any) -> Any:
        return _binary(_POW, self, other)

    def __rpow__(self, other: Any) -> Any:
        return _binary(_POW, other, self)

    def __matmul__(self, other: Any) -> Any:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return matmul(other, self)

    def __neg__(self) -> Any:
        return _unary(_UNARY_SPECS["neg"], self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _unary(_UNARY_SPECS["abs"], self)

    def __invert__(self) -> Any:
        return _record(rule_named("invert"), (self,))

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if other is None:
            return False  # as PyTorch: ``t == None`` is a plain False
        return _binary(_EQ, self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if other is None:
            return True
        return _binary(_NE, self, other)

    def __lt__(self, other: Any) -> Any:
        return _binary(_LT, self, other)

    def __le__(self, other: Any) -> Any:
        return _binary(_LE, self, other)

    def __gt__(self, other: Any) -> Any:
        return _binary(_GT, self, other)

    def __ge__(self, other: Any) -> Any:
        return _binary(_GE, self, other)

    def __and__(self, other: Any) -> Any:
        return _binary(_AND, self, other)

    def __rand__(self, other: Any) -> Any:
        return _binary(_AND, other, self)

    def __or__(self, other: Any) -> Any:
        return _binary(_OR, self, other)

    def __ror__(self, other: Any) -> Any:
        return _binary(_OR, other, self)

    def __xor__(self, other: Any) -> Any:
        return _binary(_XOR, self, other)

    # --- named elementwise -------------------------------------------------------------
    sin = _unary_method("sin")
    cos = _unary_method("cos")
    tan = _unary_method("tan")
    exp = _unary_method("exp")
    log = _unary_method("log")
    sqrt = _unary_method("sqrt")
    abs = _unary_method("abs")
    tanh = _unary_method("tanh")
    sigmoid = _unary_method("sigmoid")
    relu = _unary_method("relu")
    square = _unary_method("square")
    neg = _unary_method("neg")
    negative = neg
    exp2 = _unary_method("exp2")
    expm1 = _unary_method("expm1")
    log2 = _unary_method("log2")
    log10 = _unary_method("log10")
    log1p = _unary_method("log1p")
    asin = arcsin = _unary_method("asin")
    acos = arccos = _unary_method("acos")
    atan = arctan = _unary_method("atan")
    sinh = _unary_method("sinh")
    cosh = _unary_method("cosh")
    asinh = _unary_method("asinh")
    acosh = _unary_method("acosh")
    atanh = _unary_method("atanh")
    reciprocal = _unary_method("reciprocal")
    sign = _unary_method("sign")
    floor = _unary_method("floor")
    ceil = _unary_method("ceil")
    trunc = _unary_method("trunc")
    isnan = _unary_method("isnan")
    isinf = _unary_method("isinf")
    isfinite = _unary_method("isfinite")
    logical_not = _unary_method("logical_not")

    def add(self, other: Any, *, alpha: Any = 1) -> Any:
        return _binary(_ADD, self, other if alpha == 1 else other * alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Any:
        return _binary(_SUB, self, other if alpha == 1 else other * alpha)

    subtract = sub

    def mul(self, other: Any) -> Any:
        return _binary(_MUL, self, other)

    multiply = mul

    def div(self, other: Any) -> Any:
        return _binary(_DIV, self, other)

    divide = true_divide = div

    def pow(self, exponent: Any) -> Any:
        return _binary(_POW, self, exponent)

    def atan2(self, other: Any) -> Any:
        return _binary(_ATAN2, self, other)

    def maximum(self, other: Any) -> Any:
        return _binary(_MAXIMUM, self, other)

    def minimum(self, other: Any) -> Any:
        return _binary(_MINIMUM, self, other)

    def eq(self, other: Any) -> Any:
        return _binary(_EQ, self, other)

    def ne(self, other: Any) -> Any:
        return _binary(_NE, self, other)

    def lt(self, other: Any) -> Any:
        return _binary(_LT, self, other)

    def le(self, other: Any) -> Any:
        return _binary(_LE, self, other)

    def gt(self, other: Any) -> Any:
        return _binary(_GT, self, other)

    def ge(self, other: Any) -> Any:
        return _binary(_GE, self, other)

    def clamp(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return _record(rule_named("clip"), (self, min, max))

    clip = clamp

    def where(self, condition: Any, other: Any) -> Any:
        return _record(rule_named("where"), (condition, self, other))

    def softmax(self, dim: int) -> Any:
        return _record(rule_named("softmax"), (self,), {"axis": dim})

    def log_softmax(self, dim: int) -> Any:
        return _record(rule_named("log_softmax"), (self,), {"axis": dim})

    # --- reductions ----------------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        x = self if dtype is None else self.to(dtype)
        return _reduce(x, "sum", dim, keepdim)

    def mean(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        x = self if dtype is None else self.to(dtype)
        _check_float(x, "mean")
        return _reduce(x, "mean", dim, keepdim)

    def prod(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        x = self if dtype is None else self.to(dtype)
        return _reduce(x, "prod", dim, keepdim)

    def var(self, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
            correction: Any = None) -> Any:
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        _check_float(self, "var")
        return _reduce(self, "var", dim, keepdim, ddof=ddof)

    def std(self, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
            correction: Any = None) -> Any:
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        _check_float(self, "std")
        return _reduce(self, "std", dim, keepdim, ddof=ddof)

    def _extreme(self, rule: str, arg: Any, dim: Any, keepdim: bool) -> Any:
        tensor = _ops._tm.Tensor
        if isinstance(dim, tensor) or (dim is not None and not isinstance(dim, int)):
            raise TypeError(f"{rule}(): dim must be an int, got {type(dim).__name__}")
        if self._data.size == 0:
            raise RuntimeError(f"{rule}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        values = _reduce(self, rule, dim, keepdim)
        if dim is None:
            return values
        index = arg(self._data, axis=dim, keepdims=keepdim)
        return MaxResult(values, tensor._wrap(np.asarray(index, dtype=np.int64)))

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, _ops._tm.Tensor):
            return self.maximum(dim)
        return self._extreme("max", np.argmax, dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, _ops._tm.Tensor):
            return self.minimum(dim)
        return self._extreme("min", np.argmin, dim, keepdim)

    def amax(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _reduce(self, "max", dim, keepdim)

    def amin(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _reduce(self, "min", dim, keepdim)

    def argmax(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("argmax"), (self,), {"axis": dim, "keepdims": keepdim})

    def argmin(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("argmin"), (self,), {"axis": dim, "keepdims": keepdim})

    def all(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("all"), (self,), {"axis": dim, "keepdims": keepdim})

    def any(self, dim: Any = None, keepdim: bool = False) -> Any:
        return _record(rule_named("any"), (self,), {"axis": dim, "keepdims": keepdim})

    def cumsum(self, dim: int) -> Any:
        return _record(rule_named("cumsum"), (self,), {"axis": dim})

    def norm(self, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
        ord_ = None if p in (2, "fro") and dim is None else p
        if dim is None and self._data.ndim > 1:
            return _record(rule_named("norm"), (self.reshape(-1),),
                           {"ord": ord_, "axis": None, "keepdims": False})
        return _record(rule_named("norm"), (self,), {"ord": ord_, "axis": _axis(dim),
                                                     "keepdims": keepdim})

    # --- products ------------------------------------------------------------------------
    def matmul(self, other: Any) -> Any:
        return matmul(self, other)

    def mm(self, other: Any) -> Any:
        if self._data.ndim != 2 or np.ndim(getattr(other, "_data", other)) != 2:
            raise RuntimeError("self must be a matrix")
        return matmul(self, other)

    def mv(self, vec: Any) -> Any:
        return matmul(self, vec)

    def dot(self, other: Any) -> Any:
        if self._data.ndim != 1 or np.ndim(getattr(other, "_data", other)) != 1:
            raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and "
                               f"{np.ndim(getattr(other, '_data', other))}D tensors")
        return matmul(self, other)

    def outer(self, other: Any) -> Any:
        return _record(rule_named("outer"), (self, other))
