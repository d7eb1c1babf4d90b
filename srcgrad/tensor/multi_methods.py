"""The runtime's tuple-returning operations in PyTorch's spellings: ``t.split``,
``t.chunk``, ``t.unbind``, ``t.sort`` and ``sg.meshgrid``.

Where it sits: the Tensor layer, above the rule table. Each builds the items of
:mod:`srcgrad.rules.multi` (``split_piece``, ``unstack_piece``, ``sort_values`` with the
zero-derivative ``sort_order``, ``meshgrid_piece``) and records them with
:func:`.numpy_protocol.record_items`, one node per item named as PyTorch names it
(``SplitBackward0``, ``SplitWithSizesBackward0``, ``UnbindBackward0``, ``SortBackward0``).
PyTorch's semantics, not NumPy's: ``split`` takes a piece *size* (or a list of sizes),
``chunk`` a number of chunks of ``ceil(n / chunks)`` (so possibly fewer chunks), and
``sort`` returns ``(values, indices)`` as a named tuple like ``torch.return_types.sort``.
PyTorch gives all pieces of one call a single node; srcgrad gives each its own node of
the same name (the gradients are the same).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from ..rules.multi import Item

SortResult = namedtuple("SortResult", ["values", "indices"])  # torch.return_types.sort


def record_items(items: list[Item], result: Any) -> Any:
    from .numpy_protocol import record_items as record  # (numpy_protocol imports tensor)

    return record(items, result)


def _dim(t: Any, dim: int) -> int:
    nd = t._data.ndim
    if not -max(nd, 1) <= dim < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {dim})")
    return dim % max(nd, 1)


def _pieces(t: Any, bounds: list[int], dim: int, form: str | None) -> tuple[Any, ...]:
    """Pieces of ``t`` between consecutive ``bounds`` along ``dim``."""
    items = [Item("split_piece", {"x": t, "sections": tuple(bounds[1:-1]), "axis": dim,
                                  "index": i, "equal": False}, form)
             for i in range(len(bounds) - 1)]
    return record_items(items, tuple)


def split(t: Any, split_size_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
    d = _dim(t, dim)
    n = t._data.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0 and not (size == 0 and n == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}" if size == 0 else
                               f"split expects split_size be non-negative, but got "
                               f"split_size={size}")
        bounds = [*range(0, n, size), n] if n else [0, 0]
        return _pieces(t, bounds, d, None)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                           f"(input tensor's size at dimension {dim}), but got "
                           f"split_sizes={sizes}")
    bounds = [0]
    for s in sizes:
        bounds.append(bounds[-1] + s)
    return _pieces(t, bounds, d, "sizes")


def chunk(t: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = t._data.shape[_dim(t, dim)]
    return split(t, max(-(-n // chunks), 1) if n else 0, dim)


def unbind(t: Any, dim: int = 0) -> tuple[Any, ...]:
    if t._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(t, dim)
    return record_items([Item("unstack_piece", {"x": t, "axis": d, "index": i})
                         for i in range(t._data.shape[d])], tuple)


def sort(t: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """``(values, indices)``; ties keep their order (a stable sort), whatever ``stable``."""
    axis = _dim(t, dim) if t._data.ndim else None
    env = {"x": t, "axis": axis, "descending": bool(descending)}
    values, indices = record_items([Item("sort_values", env), Item("sort_order", env)],
                                   tuple)
    if t._data.ndim == 0:  # a 0-d tensor sorts to itself (sort_order flattened it)
        values, indices = values.reshape(()), indices.reshape(())
    return SortResult(values, indices)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Any, ...]:
    """PyTorch's ``meshgrid``: ``indexing='ij'`` by default; tensors as arguments or one
    list; each of at most one dimension."""
    from .functions import as_tensor

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", "
                           f"but received: {indexing}")
    xs = [as_tensor(x) for x in tensors]
    if any(x._data.ndim > 1 for x in xs):
        raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
    return record_items([Item("meshgrid_piece", {"xs": xs, "index": k, "indexing": indexing})
                         for k in range(len(xs))], tuple)
