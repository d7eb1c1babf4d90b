"""Tensor methods of issue 14 with PyTorch's names and signatures: ``sinc``, ``deg2rad``,
``rad2deg``, ``erf``, ``erfc``, ``lgamma``, ``digamma``, ``polygamma``, ``logaddexp2``,
``fmax``, ``fmin``, ``nan_to_num``, ``cumprod``, ``nansum``, ``nanmean``, ``median``.

Each records the table's rule (``srcgrad/rules/elementwise_more.py``, ``special.py``,
``reductions_more.py``, ``statistics.py``); the NumPy spellings (``np.sinc(t)``) reach the
same rules through :mod:`.numpy_protocol`. ``t.median()`` is PyTorch's lower median
(rule ``median_low``), not NumPy's average of the two middle values (``np.median(t)``).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..rules import rule_named
from . import ops as _ops
from .reduce_methods import NO_DIM, _reduce

_record = _ops.record

MedianResult = namedtuple("MedianResult", ["values", "indices"])  # torch.return_types.median


def _unary(rule: str) -> Any:
    def fn(self: Any) -> Any:
        return _record(rule_named(rule), (self,))

    fn.__name__ = rule
    fn.__doc__ = f"Elementwise ``{rule}`` (rule ``{rule}``)."
    return fn


def _binary(rule: str) -> Any:
    def fn(self: Any, other: Any) -> Any:
        return _record(rule_named(rule), (self, other))

    fn.__name__ = rule
    fn.__doc__ = f"Elementwise ``{rule}`` of two tensors (rule ``{rule}``)."
    return fn


class ElemMethods:
    """Elementwise, special and reduction methods added by issue 14."""

    sinc = _unary("sinc")
    deg2rad = _unary("deg2rad")
    rad2deg = _unary("rad2deg")
    erf = _unary("erf")
    erfc = _unary("erfc")
    lgamma = _unary("lgamma")
    logaddexp2 = _binary("logaddexp2")
    fmax = _binary("fmax")
    fmin = _binary("fmin")

    def digamma(self) -> Any:
        return _record(rule_named("polygamma"), (self,), {"n": 0}, form="digamma")

    def polygamma(self, n: int) -> Any:
        return _record(rule_named("polygamma"), (self,), {"n": int(n)})

    def nan_to_num(self, nan: float = 0.0, posinf: float | None = None,
                   neginf: float | None = None) -> Any:
        return _record(rule_named("nan_to_num"), (self,),
                       {"copy": True, "nan": nan, "posinf": posinf, "neginf": neginf})

    def cumprod(self, dim: int, *, dtype: Any = None) -> Any:
        x = self if dtype is None else self.to(dtype)
        return _record(rule_named("cumprod"), (x,), {"axis": dim})

    def nansum(self, dim: Any = NO_DIM, keepdim: bool = False) -> Any:
        return _reduce(self, "nansum", dim, keepdim)

    def nanmean(self, dim: Any = NO_DIM, keepdim: bool = False) -> Any:
        return _reduce(self, "nanmean", dim, keepdim)

    def median(self, dim: int | None = None, keepdim: bool = False) -> Any:
        """The lower middle value (PyTorch); with ``dim``, ``(values, indices)``."""
        rule = rule_named("median_low")
        if dim is None:
            return _record(rule, (self,), {"axis": None, "keepdims": False})
        values = _record(rule, (self,), {"axis": dim, "keepdims": keepdim})
        index = rule_named("median_low_index").impl(self._data, dim, keepdim)
        return MedianResult(values, _ops._tm.Tensor._wrap(np.asarray(index, dtype=np.int64)))
