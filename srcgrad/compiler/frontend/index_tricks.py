"""``np.r_[...]`` and ``np.c_[...]`` with traced values: lowered to a concatenate.

Called by :meth:`.expressions.ExpressionsMixin.expr_Subscript` when the subscripted
object is one of NumPy's ``AxisConcatenator`` objects and an item is known only at run
time (with compile-time items only, NumPy computes the result while compiling). NumPy's
own recipe (``AxisConcatenator.__getitem__``) is followed item by item, with the ranks of
traced values taken from their abstract types: arrays and scalars get at least ``ndmin``
dims (leading ones; ``np.c_`` then moves a vector's axis to a column, ``trans1d``),
constant slices (``1:10``, ``0:1:5j``) become ``arange``/``linspace`` constants, a first
string item sets ``axis,ndmin,trans1d``, and everything is joined by ``np.concatenate``
in the dtype NumPy's ``result_type`` gives (Python scalars weakly). So the derivative is
that of indexing and ``concatenate``, both rules. The matrix directives ``'r'``/``'c'``
build an ``np.matrix`` and are refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..symbolic import Sym, is_symbolic, record_rule
from . import calls

if TYPE_CHECKING:
    from .lower import Lowerer

_CONCATENATOR = type(np.r_).__mro__[1]  # numpy's AxisConcatenator (RClass, CClass derive it)
_SCALARS = (int, float, bool, complex, np.generic)


def is_concatenator(value: Any) -> bool:
    return isinstance(value, _CONCATENATOR)


def lower(lw: Lowerer, maker: Any, key: Any, node: Any) -> Any:
    """``maker[key]`` (``np.r_[x, 0:3, c]``) for a ``key`` holding traced values."""
    name = {"CClass": "np.c_"}.get(type(maker).__name__, "np.r_")
    items = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d = maker.axis, maker.ndmin, maker.trans1d
    pieces: list[Any] = []
    kinds: list[Any] = []  # what NumPy's result_type sees: dtypes, or weak Python scalars
    for k, item in enumerate(items):
        if isinstance(item, str):
            if k != 0 or item in ("r", "c"):
                raise lw.err(node, f"the directive {item!r} in {name}[...] is not supported"
                             + (" (it builds an np.matrix)" if k == 0 else
                                " (directives come first)") + ".",
                             "Use a directive 'axis,ndmin,trans1d' first, or np.concatenate.")
            axis, ndmin, trans1d = _directive(lw, item, (axis, ndmin, trans1d), name, node)
            continue
        if isinstance(item, slice):
            if is_symbolic([item.start, item.stop, item.step]):
                raise lw.err(node, f"a slice in {name}[...] with bounds known only at run "
                             "time (its length would be too).",
                             "Give the slice constant bounds, or use np.arange/np.linspace.")
            row = np.r_[item]
            if ndmin > 1:
                row = np.array(row, ndmin=ndmin)
                if trans1d != -1:
                    row = row.swapaxes(-1, trans1d)
            pieces.append(row)
            kinds.append(row.dtype)
        elif isinstance(item, Sym):
            typ = item.value.type
            ndim = typ.known_ndim if typ is not None else None
            if ndim is None:
                raise lw.err(node, f"an item of {name}[...] whose number of dimensions is "
                             "not known while compiling.",
                             "Pass arrays (or floats) of a fixed number of dimensions.")
            if typ.is_python_number:  # a weak scalar for result_type; indexed as an array
                kinds.append({"float": 0.0, "int": 0}.get(typ.kind, False))
            else:
                kinds.append(np.dtype(typ.dtype or "float64"))
            pieces.append(_promoted(lw, item, ndim, ndmin, trans1d, node))
        elif type(item) in _SCALARS or isinstance(item, np.generic):
            pieces.append(item)
            kinds.append(item)
        else:
            if is_symbolic(item):  # a list of traced values: the array NumPy reads
                item = calls.call(lw, np.asarray, [item], {}, node)
                return lower(lw, maker, (*items[:k], item, *items[k + 1:]), node)
            array = np.asarray(item)
            pieces.append(_constant(array, ndmin, trans1d))
            kinds.append(array.dtype)
    if not pieces:
        return maker[key]
    dtype = np.result_type(*kinds)
    objs = [np.array(p, ndmin=ndmin, dtype=dtype) if not isinstance(p, Sym) else p
            for p in pieces]
    traced = [p for p in objs if isinstance(p, Sym)]
    same = all(p.value.type.dtype == dtype.name for p in traced) and all(
        p.dtype == dtype for p in objs if not isinstance(p, Sym))
    return calls.call(lw, np.concatenate, [objs], {"axis": axis} if same else
                      {"axis": axis, "dtype": dtype}, node)


def _directive(lw: Lowerer, item: str, current: tuple[int, int, int], name: str,
               node: Any) -> tuple[int, int, int]:
    """``'axis'``, ``'axis,ndmin'`` or ``'axis,ndmin,trans1d'`` as NumPy reads them."""
    axis, ndmin, trans1d = current
    try:
        parts = [int(p) for p in item.split(",")]
    except ValueError:
        raise lw.err(node, f"unknown directive {item!r} in {name}[...] (NumPy raises "
                     "the same).", "Write 'axis', 'axis,ndmin' or 'axis,ndmin,trans1d'.") \
            from None
    if len(parts) == 1:
        return parts[0], ndmin, trans1d
    return parts[0], parts[1], parts[2] if len(parts) == 3 else trans1d


def _axes(item_ndim: int, ndmin: int, trans1d: int) -> list[int] | None:
    """NumPy's transpose of an item promoted from ``item_ndim`` to ``ndmin`` dims."""
    if trans1d == -1 or item_ndim >= ndmin:
        return None
    k2, k1 = ndmin - item_ndim, trans1d
    if k1 < 0:
        k1 += k2 + 1
    axes = list(range(ndmin))
    return axes[:k1] + axes[k2:] + axes[k1:k2]


def _constant(array: np.ndarray, ndmin: int, trans1d: int) -> np.ndarray:
    out = np.array(array, ndmin=ndmin)
    axes = _axes(array.ndim, ndmin, trans1d)
    return out if axes is None else out.transpose(axes)


def _promoted(lw: Lowerer, item: Sym, ndim: int, ndmin: int, trans1d: int, node: Any) -> Any:
    """A traced item with at least ``ndmin`` dims (leading ones), transposed as NumPy."""
    if ndim >= ndmin:
        return item
    if ndim == 0:  # (a Python float too, which cannot be indexed)
        out = calls.call(lw, np.reshape, [item, (1,) * ndmin], {}, node)
    else:
        index = (None,) * (ndmin - ndim) + (Ellipsis,)
        with lw.ctx.builder.at_line(lw.line_of(node)):
            out = record_rule(calls.rule("getitem"), [item], {"index": index})
    axes = _axes(ndim, ndmin, trans1d)
    return out if axes is None else calls.call(lw, np.transpose, [out, tuple(axes)], {}, node)
