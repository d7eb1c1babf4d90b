"""Run-time helpers of batched forward mode: tangents with a leading axis of rows.

Batched forward mode (``ad/batching.py``) carries ``k`` tangents at once as one array of
shape ``(k,) + x.shape``: row ``j`` is the tangent of direction ``j``. Elementwise rules
broadcast over that leading axis once their inputs' tangents have the output's rank
(:func:`rows_expand`); the helpers here are the batched forms of the shape-aware linear
primitives the reverse pass emits (indexing, scattering, (un)broadcasting, reductions,
casts), each keeping axis 0 as the row axis. The emitted code of ``sg.hessian`` and
``sg.jacobian`` calls them; their records are in :data:`ROW_RULES` (structural: compiler
only, never differentiated again).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules import LINEAR, NONDIFF, Rule, forward_tangent
from srcgrad.rules.helpers import is_basic_index


class Unbatchable(SrcGradError):
    """A primitive a tangent reaches has no batched form: compute the columns one by one
    (raised at compile time, or by :func:`rows_each` on a list it cannot take rows of)."""


def _pad(t: Any, ndim: int) -> Any:
    """``t`` with ones inserted after the row axis until it has ``ndim`` axes after it."""
    t = np.asarray(t)
    missing = ndim + 1 - t.ndim
    return t.reshape((t.shape[0],) + (1,) * missing + t.shape[1:]) if missing > 0 else t


def rows_zeros(x: Any, rows: Any) -> Any:
    """Zero tangents of ``x`` for as many rows as ``rows`` has (x's float dtype)."""
    dtype = np.asarray(x).dtype
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    # laid out as the tangent is: column-major rows make an element's column contiguous
    return np.zeros((np.shape(rows)[0],) + np.shape(x), dtype=dtype, order=_order_of(rows))


def _order_of(rows: Any) -> str:
    """"F" for column-major rows (the unit rows sg.hessian passes), else "C"."""
    return "F" if type(rows) is np.ndarray and rows.ndim > 1 and rows.flags.f_contiguous \
        and not rows.flags.c_contiguous else "C"


def rows_expand(t: Any, out: Any) -> Any:
    """``t`` with the rank of ``out`` after its row axis, so it broadcasts against ``out``
    (and the other inputs of an elementwise op) as the primal value it moves did."""
    ndim = out.ndim if isinstance(out, (np.ndarray, np.generic)) else np.ndim(out)
    if type(t) is np.ndarray and t.ndim == ndim + 1:  # the common case: nothing to do
        return t
    return _pad(t, ndim)


def rows_rebroadcast(t: Any, shape: Any) -> Any:
    """``t`` broadcast to ``(k,) + shape``."""
    shape = tuple(shape)
    if type(t) is not np.ndarray:
        t = np.asarray(t)
    if t.shape[1:] == shape:
        return t
    return np.broadcast_to(_pad(t, len(shape)), (t.shape[0],) + shape)


def rows_unbroadcast(t: Any, shape: Any) -> Any:
    """Each row of ``t`` summed over the axes broadcasting added or stretched to ``shape``."""
    shape = tuple(shape)
    t = _pad(t, len(shape))
    if t.shape[1:] == shape:
        return t
    lead = t.ndim - 1 - len(shape)
    if lead:
        t = np.sum(t, axis=tuple(range(1, 1 + lead)))
    stretched = tuple(i + 1 for i, n in enumerate(shape) if n == 1 and t.shape[i + 1] != 1)
    if stretched:
        t = np.sum(t, axis=stretched, keepdims=True)
    return t


def _row_index(index: Any) -> tuple[Any, ...] | None:
    """``index`` behind a full slice of the row axis, or None where that would move the
    result's axes (NumPy puts the broadcast axes of separated array indices first)."""
    if type(index) is int:  # a scalar read in a loop
        return (slice(None), index)
    parts = index if isinstance(index, tuple) else (index,)
    if not is_basic_index(index):
        advanced = [i for i, p in enumerate(parts) if not (
            p is None or p is Ellipsis or isinstance(p, slice))]
        if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
            return None
    return (slice(None), *parts)


def rows_getitem(t: Any, index: Any) -> Any:
    """``t[j][index]`` for every row ``j``."""
    if type(index) is int and type(t) is np.ndarray:  # an element read in a loop
        return t[:, index]
    if type(t) in (tuple, list):  # an item of a tuple or list: its own rows
        return t[index]
    t = np.asarray(t)
    shifted = _row_index(index)
    if shifted is None:
        return np.stack([row[index] for row in t])
    return t[shifted]


def rows_scatter_add(t: Any, shape: Any, index: Any) -> Any:
    """Rows of zeros of ``shape`` with each row of ``t`` added at ``index``."""
    if type(index) is int and type(t) is np.ndarray:  # the adjoint of an element read
        z = np.zeros((t.shape[0], *shape), dtype=t.dtype)
        z[:, index] = t
        return z
    t = np.asarray(t)
    # laid out as the rows added are (rows_zeros): adding column-major rows into row-major
    # zeros runs through NumPy's buffers, thirty times slower than into column-major ones
    z = np.zeros((t.shape[0],) + tuple(shape), dtype=t.dtype, order=_order_of(t))
    shifted = _row_index(index)
    if shifted is None:
        for row, value in zip(z, t):
            np.add.at(row, index, value)
    elif is_basic_index(index):
        z[shifted] += t
    else:
        np.add.at(z, shifted, t)
    return z


def _row_axes(axis: Any, ndim: int) -> Any:
    """A reduction's ``axis`` of one row, as axes of the batched array."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(int(a) % ndim + 1 for a in axes)


def rows_sum(t: Any, axis: Any = None, keepdims: bool = False) -> Any:
    t = np.asarray(t)
    return np.sum(t, axis=_row_axes(axis, t.ndim - 1), keepdims=keepdims)


def rows_mean(t: Any, axis: Any = None, keepdims: bool = False) -> Any:
    t = np.asarray(t)
    return np.mean(t, axis=_row_axes(axis, t.ndim - 1), keepdims=keepdims)


def rows_unreduce(t: Any, shape: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Each row broadcast back over a reduction's ``axis`` to ``shape``."""
    shape = tuple(shape)
    t = np.asarray(t)
    if not keepdims and axis is not None and shape:
        t = np.expand_dims(t, _row_axes(axis, len(shape)))
    return np.broadcast_to(_pad(t, len(shape)), (t.shape[0],) + shape)


def _adds_in_place(acc: Any, t: Any, shape: Any) -> bool:
    """``acc + rows_scatter_add(t, shape, index)`` has ``acc``'s shape and dtype, so it may
    be computed by adding ``t`` into (a copy of) ``acc`` at ``index``."""
    if type(acc) is not np.ndarray or acc.shape[1:] != tuple(shape):
        return False
    if type(t) is np.ndarray and t.dtype == acc.dtype:
        return True
    return np.result_type(acc.dtype, np.asarray(t).dtype) == acc.dtype


def _add_rows_at(acc: np.ndarray, t: Any, index: Any) -> np.ndarray:
    if type(index) is int:  # the adjoint of an element read in a loop
        column = acc[:, index]
        column += t
        return acc
    shifted = _row_index(index)
    if shifted is None:
        for row, value in zip(acc, np.asarray(t)):
            np.add.at(row, index, value)
    elif is_basic_index(index):
        part = acc[shifted]  # (a basic index: a view)
        part += t
    else:
        np.add.at(acc, shifted, t)
    return acc


def rows_add_at(x: Any, t: Any, shape: Any, index: Any) -> Any:
    """``x + rows_scatter_add(t, shape, index)`` as a new array, without the array of zeros
    when ``x`` has the rows of ``shape`` (the sum of an adjoint's contributions from element
    reads, :mod:`.ad.accumulate_rows`)."""
    if _adds_in_place(x, t, shape):
        return _add_rows_at(x.copy(), t, index)
    return x + rows_scatter_add(t, shape, index)


def rows_add_into(x: Any, t: Any, shape: Any, index: Any) -> Any:
    """:func:`rows_add_at` written into ``x`` itself where it has the result's shape and
    dtype. The backend calls it only on an array nothing else holds (``backend/inplace.py``)."""
    if type(index) is int and type(x) is np.ndarray and type(t) is np.ndarray \
            and t.dtype == x.dtype and x.shape[1:] == shape:  # an element read in a loop
        column = x[:, index]  # (a view: added into, not stored back as x[:, i] += t does)
        column += t
        return x
    if _adds_in_place(x, t, shape):
        return _add_rows_at(x, t, index)
    return x + rows_scatter_add(t, shape, index)


def rows_after(t: Any, seed: Any) -> Any:
    """``t``, returned once ``seed`` is computed: the seed of a gradient whose products
    the batched pass leaves out (``t * 1``) still ends the function's own computation,
    which so runs, and raises, as it does in the gradient."""
    return t


def rows_like(t: Any, x: Any) -> Any:
    """Rows with the dtype (and, for an array, the shape) of argument ``x``."""
    if type(x) is float:
        return np.asarray(t, dtype=np.float64)
    if isinstance(x, (np.ndarray, np.generic)):
        t = np.asarray(t)
        if t.dtype != x.dtype or t.shape[1:] != np.shape(x):
            t = np.array(rows_rebroadcast(t, np.shape(x)), dtype=x.dtype)
        return t
    return t


def rows_matmul(t: Any, y: Any) -> Any:
    """Rows of ``t[j] @ y`` (``y`` constant, at most 2-D: the rows stay in front)."""
    return np.asarray(t) @ y


def rows_rmatmul(x: Any, t: Any) -> Any:
    """Rows of ``x @ t[j]`` (``x`` constant, at most 2-D)."""
    t = np.asarray(t)
    if t.ndim == 2:  # x @ vector: (k, n) @ x.T
        return t @ np.swapaxes(x, -1, -2) if np.ndim(x) == 2 else t @ x
    return x @ t


def rows_stack_list(ts: Any, axis: int = 0) -> Any:
    """Rows of ``np.stack`` of a run-time list whose items' tangents are rows."""
    return np.stack([_rows_array(t) for t in ts], axis + 1 if axis >= 0 else axis)


def _rows_array(t: Any) -> Any:
    """A (nested) list or tuple of rows as one array with the rows in front (NumPy would
    put the list's axes first)."""
    if type(t) in (list, tuple):
        return np.stack([_rows_array(item) for item in t], axis=1)
    return t


def rows_unstack(t: Any, axis: int = 0) -> list[Any]:
    """The rows of each slice along ``axis`` (the batched ``unstack``)."""
    return list(np.moveaxis(t, axis + 1 if axis >= 0 else axis, 0))


def rows_each(rule: Rule, names: tuple[str, ...], args: tuple[Any, ...],
              active: tuple[str, ...], ts: tuple[Any, ...]) -> Any:
    """The rule's forward tangent row by row: ``forward_tangent`` at the primal point
    ``names -> args`` with row ``j`` of each active input's tangent rows. The batched form
    of a primitive whose formula does not keep a row axis (a product's adjoint, a sort):
    one call per row for this op alone, the rest of the pass stays batched."""
    env = dict(zip(names, args))
    if any(type(t) is not np.ndarray for t in ts):  # (a compile-time check missed a list)
        raise Unbatchable(f"{rule.name}() of a list has no batched form")
    rows = []
    for j in range(len(ts[0])):
        t = forward_tangent(rule, env, {n: tn[j] for n, tn in zip(active, ts)})
        rows.append(np.zeros_like(env["out"], dtype=np.result_type(env["out"], 1.0))
                    if t is None else np.broadcast_to(t, np.shape(env["out"])))
    return np.stack(rows)


def _record(name: str, fn: Any, inputs: tuple[str, ...], params: tuple[str, ...] = (),
            kind: str = LINEAR) -> Rule:
    return Rule(name, fn, inputs=inputs, params=params, kind=kind, structural=True)


ROW_RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("rows_zeros", rows_zeros, inputs=("x", "rows"), kind=NONDIFF, structural=True,
         fresh=True),
    _record("rows_expand", rows_expand, ("t", "out")),
    _record("rows_rebroadcast", rows_rebroadcast, ("t",), ("shape",)),
    _record("rows_unbroadcast", rows_unbroadcast, ("t",), ("shape",)),
    _record("rows_getitem", rows_getitem, ("t",), ("index",)),
    # (zeros made here: an array nothing else holds, which a sum of scatters adds into)
    Rule("rows_scatter_add", rows_scatter_add, inputs=("t",), params=("shape", "index"),
         kind=LINEAR, structural=True, fresh=True),
    _record("rows_sum", rows_sum, ("t",), ("axis", "keepdims")),
    _record("rows_mean", rows_mean, ("t",), ("axis", "keepdims")),
    _record("rows_unreduce", rows_unreduce, ("t",), ("shape", "axis", "keepdims")),
    _record("rows_like", rows_like, ("t", "x")),
    _record("rows_after", rows_after, ("t", "seed")),
    _record("rows_matmul", rows_matmul, ("t", "y")),
    _record("rows_rmatmul", rows_rmatmul, ("x", "t")),
    _record("rows_stack_list", rows_stack_list, ("ts",), ("axis",)),
    _record("rows_unstack", rows_unstack, ("t",), ("axis",)),
    _record("rows_each", rows_each, (), ("rule", "names", "args", "active", "ts")),
    Rule("rows_add_at", rows_add_at, inputs=("x", "t"), params=("shape", "index"),
         kind=LINEAR, structural=True, fresh=True),
)}

# A copying primitive whose first input ``x`` may instead be updated in place, and the
# function that does it: the backend calls that one when nothing else holds ``x``
# (``backend/inplace.py``), as it writes ``setitem`` as ``y[i] = v``.
IN_PLACE_FORMS: dict[str, Any] = {"rows_add_at": rows_add_into}
