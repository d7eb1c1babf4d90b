"""PyTorch's spellings of the rearranging and product functions (issue 14), on the runtime.

Tensor methods ``tril triu roll diff diagonal take_along_dim movedim moveaxis`` (a mixin
of :class:`~.tensor.Tensor`) and the functions ``sg.fliplr flipud rot90 kron tensordot
cross take take_along_dim movedim moveaxis diff tril triu roll diagonal atleast_1d/2d/3d``
and ``sg.linalg.cross`` (re-exported by :mod:`.linalg`). Each records the table's rule
(the one NumPy's spelling records: ``np.tril``, ``np.roll``, ``np.kron``, ...) with
PyTorch's argument names and defaults translated to NumPy's; the node names are
PyTorch's (each rule's ``torch=`` field). Results PyTorch returns as copies (``fliplr``,
``rot90``) are copies here too, never views of the input's storage; ``diagonal`` is a
copy here (a view in PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules import rule_named
from . import ops as _ops

_record = _ops.record


def _tensor(value: Any) -> Any:
    from .functions import as_tensor

    return as_tensor(value)


def _values(value: Any) -> Any:
    """An index or constant argument as an ndarray (a Tensor's values)."""
    return value._data if isinstance(value, _ops._tm.Tensor) else value


def _own(out: Any) -> Any:
    """``out`` with storage of its own (PyTorch's result is a copy, NumPy's a view): no
    longer a view, with a version counter of its own."""
    out._data = np.array(out._data, copy=True)
    out._base = out._view_fn = out._base_fn = None
    out._vc = [0]
    return out


def _at_least_2d(t: Any, func: str) -> None:
    if t._data.ndim < 2:
        raise RuntimeError(f"{func}: input tensor must have at least 2 dimensions.")


class ArrangeMethods:
    """``t.tril``, ``t.triu``, ``t.roll``, ``t.diff``, ``t.diagonal``, ``t.take_along_dim``,
    ``t.movedim``/``t.moveaxis``."""

    def tril(self, diagonal: int = 0) -> Any:
        _at_least_2d(self, "tril")
        return _record(rule_named("tril"), (self,), {"k": int(diagonal)})

    def triu(self, diagonal: int = 0) -> Any:
        _at_least_2d(self, "triu")
        return _record(rule_named("triu"), (self,), {"k": int(diagonal)})

    def roll(self, shifts: Any, dims: Any = None) -> Any:
        return _record(rule_named("roll"), (self,), {"shift": shifts, "axis": dims})

    def diff(self, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
        return _record(rule_named("diff"), (self, prepend, append),
                       {"n": int(n), "axis": int(dim)})

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        out = _record(rule_named("diagonal"), (self,),
                      {"offset": int(offset), "axis1": int(dim1), "axis2": int(dim2)})
        return _own(out)

    def take_along_dim(self, indices: Any, dim: Any = None) -> Any:
        index = _values(indices)
        if dim is None:  # PyTorch reads the flattened input through the flattened indices
            index = np.ravel(index)
        return _record(rule_named("take_along_axis"), (self,), {"indices": index, "axis": dim})

    def movedim(self, source: Any, destination: Any) -> Any:
        return _record(rule_named("moveaxis"), (self,),
                       {"source": source, "destination": destination})

    moveaxis = movedim


# --- module-level functions (sg.*) -------------------------------------------------------
def tril(input: Any, diagonal: int = 0) -> Any:  # noqa: A002 (PyTorch's name)
    return _tensor(input).tril(diagonal)


def triu(input: Any, diagonal: int = 0) -> Any:  # noqa: A002
    return _tensor(input).triu(diagonal)


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:  # noqa: A002
    return _tensor(input).roll(shifts, dims)


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None,  # noqa: A002
         append: Any = None) -> Any:
    return _tensor(input).diff(n, dim, prepend, append)


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:  # noqa: A002
    return _tensor(input).diagonal(offset, dim1, dim2)


def take_along_dim(input: Any, indices: Any, dim: Any = None) -> Any:  # noqa: A002
    return _tensor(input).take_along_dim(indices, dim)


def movedim(input: Any, source: Any, destination: Any) -> Any:  # noqa: A002
    return _tensor(input).movedim(source, destination)


moveaxis = movedim


def fliplr(input: Any) -> Any:  # noqa: A002
    t = _tensor(input)
    _at_least_2d(t, "fliplr")
    return _own(_record(rule_named("fliplr"), (t,)))


def flipud(input: Any) -> Any:  # noqa: A002
    t = _tensor(input)
    if t._data.ndim < 1:
        raise RuntimeError("flipud: input tensor must have at least 1 dimension.")
    return _own(_record(rule_named("flipud"), (t,)))


def rot90(input: Any, k: int = 1, dims: Any = (0, 1)) -> Any:  # noqa: A002
    t = _tensor(input)
    return _own(_record(rule_named("rot90"), (t,), {"k": int(k), "axes": tuple(dims)}))


def kron(input: Any, other: Any) -> Any:  # noqa: A002
    return _record(rule_named("kron"), (_tensor(input), _tensor(other)))


def tensordot(a: Any, b: Any, dims: Any = 2) -> Any:
    return _record(rule_named("tensordot"), (_tensor(a), _tensor(b)), {"axes": dims})


def take(input: Any, index: Any) -> Any:  # noqa: A002
    return _record(rule_named("take"), (_tensor(input),),
                   {"indices": _values(index), "axis": None, "mode": "raise"})


def _cross(a: Any, b: Any, dim: int, func: str) -> Any:
    for t in (a, b):
        d = dim % max(t._data.ndim, 1)
        if t._data.ndim == 0 or t._data.shape[d] != 3:
            raise RuntimeError(f"{func}: inputs dimension {dim} must have length 3. Got "
                               f"{a._data.shape[dim] if a._data.ndim else 0} and "
                               f"{b._data.shape[dim] if b._data.ndim else 0}")
    if a._data.ndim != b._data.ndim:  # PyTorch broadcasts only tensors of one rank
        raise RuntimeError(f"{func}: inputs must have the same number of dimensions.")
    return _record(rule_named("cross"), (a, b), {"axisa": -1, "axisb": -1, "axisc": -1,
                                                 "axis": dim})


def cross(input: Any, other: Any, dim: Any = None) -> Any:  # noqa: A002
    """``torch.cross``: without ``dim``, the first dimension of size 3 (PyTorch's
    deprecated default)."""
    a, b = _tensor(input), _tensor(other)
    if dim is None:
        shape = np.broadcast_shapes(a._data.shape, b._data.shape)
        dim = next((i for i, n in enumerate(shape) if n == 3), -1)
    return _cross(a, b, int(dim), "cross")


def linalg_cross(input: Any, other: Any, *, dim: int = -1) -> Any:  # noqa: A002
    """``torch.linalg.cross`` (``sg.linalg.cross``): vectors along ``dim`` (default -1)."""
    return _cross(_tensor(input), _tensor(other), int(dim), "linalg.cross")


def _at_least(n: int) -> Any:
    rule = rule_named(f"atleast_{n}d")

    def atleast(*tensors: Any) -> Any:
        items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) \
            else tensors
        out = tuple(t if t._data.ndim >= n else _record(rule, (t,))
                    for t in map(_tensor, items))
        return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) \
            else out

    atleast.__name__ = atleast.__qualname__ = f"atleast_{n}d"
    atleast.__doc__ = (f"``torch.atleast_{n}d``: each tensor with at least {n} dimensions "
                       "(the tensor itself when it has them; a tuple for several).")
    return atleast


atleast_1d, atleast_2d, atleast_3d = _at_least(1), _at_least(2), _at_least(3)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "cross", "diagonal", "diff", "fliplr",
           "flipud", "kron", "movedim", "moveaxis", "roll", "rot90", "take", "take_along_dim",
           "tensordot", "tril", "triu"]
