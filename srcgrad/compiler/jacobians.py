"""Dense Jacobians built from derived functions, in whichever mode needs fewer passes.

``sg.jacobian(f)(x)`` has shape ``f(x).shape + x.shape``. Forward mode fills it column by
column: column ``j`` is the ``jvp`` tangent of the result for the unit tangent ``e_j`` of
``x`` (one pass per input element). Reverse mode fills it row by row: row ``k`` is the
``vjp`` cotangent of ``x`` for the unit seed ``e_k`` shaped like the result (one pass per
output element). Each call picks the mode from the actual sizes (:func:`choose_mode`).
``sg.hessian`` is the Jacobian of ``sg.grad`` forced to forward mode (forward over reverse).

Forward mode runs batched where it can: the columns of up to :data:`ROWS` input elements
are the rows of one tangent of shape ``(k,) + x.shape`` pushed through the batched forward
derivative in one pass (``ad/batching.py``). Where that derivative refuses (a primitive
with no batched form, structured arguments or results) the columns are computed one pass
each, as before.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules.dispatch import foreign
from srcgrad.rules.foreign import in_library_of

from . import structure as S
from .rows import Unbatchable
from .trees import tree_leaves, tree_map

FORWARD = "forward"
REVERSE = "reverse"
ROWS = 256  # directions per batched pass: bounds the tangents' memory at k times the values'


def choose_mode(out_size: int, in_size: int) -> str:
    """Reverse when the result has fewer elements than the differentiated inputs together
    (fewer ``vjp`` passes than ``jvp`` passes), else forward."""
    return REVERSE if out_size < in_size else FORWARD


def _size(x: Any) -> int:
    """``np.size`` from the shape: Dask does not implement ``np.size`` (it would compute)."""
    return math.prod(np.shape(x))


def _float_dtype(x: Any) -> Any:
    return np.result_type(x.dtype if hasattr(x, "dtype") else np.result_type(x), 1.0)


def _unit(x: Any, j: int) -> Any:
    if type(x) is float or np.ndim(x) == 0 and not isinstance(x, np.ndarray) \
            and not foreign(x):
        return type(x)(1.0) if isinstance(x, np.generic) else 1.0
    e = np.zeros(_size(x), dtype=_float_dtype(x))
    e[j] = 1.0
    # of x's library: a CuPy tangent pass refuses a host tangent
    return in_library_of(e.reshape(np.shape(x)), x)


def _zero(x: Any) -> Any:
    if type(x) is float:
        return 0.0
    return np.zeros_like(x, dtype=_float_dtype(x))


def _as_float(t: Any, other: Any = None) -> Any:
    """A column or row as floats of the result type of it and ``other`` (the input a column
    is taken along, the result a row is taken of): float32 throughout gives float32 blocks,
    as gradients keep float32, and either mode gives the same dtype; a foreign one (Dask,
    CuPy) cast by its own library."""
    dtype = np.result_type(_float_dtype(t), _float_dtype(other) if other is not None else
                           np.float16)
    if getattr(t, "dtype", None) == dtype:
        return t if foreign(t) else np.asarray(t)
    return t.astype(dtype) if foreign(t) else np.asarray(t, dtype=dtype)


def jacobian_of(f: Any, fw: Any, pb: Any | None, wrt: Any, rows: Any | None = None) -> Any:
    """``J(*args, **kwargs)`` for ``f``, built on ``fw = sg.jvp(f, wrt=wrt)`` and, when given,
    ``pb = sg.vjp(f, wrt=wrt)``; without ``pb`` the Jacobian is always built in forward mode,
    batched through ``rows`` (the batched forward derivative) when given and it can.
    ``J.last_mode`` records the mode of the latest call ("forward" or "reverse"),
    ``J.last_batched`` whether its forward passes were batched."""
    d = fw.__srcgrad__
    positional_call = _all_positional(d)

    def J(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == len(d.param_names) and positional_call:
            # every argument given by position (the usual call): nothing to bind
            values, positional, keywords = args, args, {}
        else:
            values = _bind_like_f(d, args, kwargs, J.__name__)
            required = [p.name for p in d.signature.parameters.values()
                        if p.kind != p.KEYWORD_ONLY and p.name != "tangent"]
            positional = [values[d.param_names.index(n)] for n in required]
            keywords = {n: values[i] for i, n in enumerate(d.param_names)
                        if n not in required}
        inputs = [values[i] for i in d.wrt]
        def push(tangent: Any) -> Any:
            return fw(*positional, tangent, **keywords)

        def structured() -> Any:
            J.last_mode = FORWARD  # type: ignore[attr-defined]
            blocks = tree_blocks(push, inputs, d.tuple_wrt)
            return tuple(blocks) if d.tuple_wrt else blocks[0]
        if any(S.is_structured(x) for x in inputs):
            return structured()
        mode = FORWARD
        if pb is not None:
            out = f(*positional, **keywords)
            if _is_record(out):
                return structured()
            # A tuple result has no single row layout: forward mode, as before.
            if not isinstance(out, (tuple, list)):
                mode = choose_mode(_size(out), sum(_size(x) for x in inputs))
        J.last_mode = mode  # type: ignore[attr-defined]
        J.last_batched = False  # type: ignore[attr-defined]
        if mode == FORWARD and rows is not None and J.batches and _batchable(inputs):
            try:
                blocks = _by_row_batches(
                    lambda tangent: rows(*positional, tangent, **keywords), inputs,
                    d.tuple_wrt)
            except Unbatchable:
                J.batches = False  # type: ignore[attr-defined]  # (compiled: it stays so)
            except Exception:  # noqa: BLE001 - the per-column passes below decide: they
                # raise the user's own error again, or compute what the batched pass could
                # not (never a wrong row: an exception is no result)
                J.batches = False  # type: ignore[attr-defined]
            else:
                if blocks is not None:
                    J.last_batched = True  # type: ignore[attr-defined]
                    return tuple(blocks) if d.tuple_wrt else blocks[0]
        if mode == REVERSE:
            blocks = _by_rows(lambda seed: pb(*positional, seed, **keywords), out, inputs,
                              d.tuple_wrt)
        else:
            try:
                blocks = _by_columns(push, inputs, values, d.wrt, d.tuple_wrt)
            except _StructuredResult:
                return structured()
        return tuple(blocks) if d.tuple_wrt else blocks[0]

    J.__name__ = f"jacobian_{getattr(d.f, '__name__', 'f')}"
    J.__srcgrad__ = d  # type: ignore[attr-defined]
    J.last_mode = None  # type: ignore[attr-defined]
    J.last_batched = False  # type: ignore[attr-defined]
    J.batches = True  # type: ignore[attr-defined]
    return J


def _bind_like_f(d: Any, args: Any, kwargs: dict[str, Any], name: str) -> list[Any]:
    """The call's arguments in ``d.param_names`` order, bound as ``f`` binds them: ``J`` is
    called like ``f``, while the derived function it calls takes the tangent after the
    required parameters and the defaulted ones by keyword (``H(x, 3.0)`` is ``scale=3.0``)."""
    try:
        bound = inspect.signature(d.f).bind(*args, **kwargs)
    except TypeError as e:
        raise SrcGradError(f"{name}: {e}") from None
    bound.apply_defaults()
    return [bound.arguments[n] for n in d.param_names]


def _all_positional(d: Any) -> bool:
    """``f``'s parameters are all positional (no keyword-only one, no ``*args``): a call
    with one positional argument per parameter binds them in order, defaults unused."""
    kinds = [p.kind for p in d.signature.parameters.values() if p.name != "tangent"]
    return len(kinds) == len(d.param_names) and all(
        k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for k in kinds)


def _batchable(inputs: list[Any]) -> bool:
    """Float arrays only: a float or a NumPy scalar has one column (nothing to batch), and
    a structure's leaves are laid out by :func:`tree_blocks`."""
    return all(type(x) is np.ndarray and x.dtype.kind == "f" and x.ndim >= 1 for x in inputs)


# The unit rows last used, read-only: a Hessian's tangent is the same identity every call.
# Made anew each call, the (k, n) identity beside the (k, n) result made glibc hand the
# pages back to the kernel at every return and fault them in again (at n = 200, ~170 page
# faults a call, a third of sg.hessian's time on a loop over the elements).
_UNIT_ROWS: dict[tuple[Any, ...], np.ndarray] = {}
_UNIT_ROWS_KEPT = 8  # (entries of at most ROWS rows each)


def _unit_rows(x: np.ndarray, first: int, count: int) -> np.ndarray:
    """``count`` tangent rows of ``x``'s shape, row ``r`` the unit tangent of ``x``'s
    element ``first + r`` (a zero row where that is no element of ``x``)."""
    dtype = np.result_type(x, 1.0)
    key = (dtype, x.shape, first, count)
    e = _UNIT_ROWS.get(key)
    if e is not None:
        return e
    if first == 0 and count == x.size:  # all of this input's columns: eye
        e = np.eye(x.size, dtype=dtype)
    else:
        e = np.zeros((count, x.size), dtype=dtype)
        j = np.arange(max(first, 0), min(first + count, x.size))
        e[j - first, j] = 1.0
    # column-major: the rows of one element of x (what a read x[i] in a loop takes) are
    # contiguous, and so are the accumulated result's (rows_zeros follows the tangent)
    e = np.asfortranarray(e.reshape((count,) + x.shape))
    e.flags.writeable = False  # (a derivative writing into its tangent raises, never
    # changes the next call's)
    if len(_UNIT_ROWS) >= _UNIT_ROWS_KEPT:
        _UNIT_ROWS.pop(next(iter(_UNIT_ROWS)))
    _UNIT_ROWS[key] = e
    return e


def _by_row_batches(push: Callable[[Any], Any], inputs: list[Any],
                    tuple_wrt: bool) -> list[np.ndarray] | None:
    """The columns of every block, up to :data:`ROWS` of them per batched pass: the unit
    tangents of a chunk of input elements are the rows of one tangent (of each input).
    ``push`` returns only the tangent rows, ``(k,) + out.shape``. None when they are not
    one array (a tuple result keeps the per-column layout)."""
    starts = [0]
    for x in inputs:
        starts.append(starts[-1] + int(x.size))
    total = starts[-1]
    columns, out = [], None
    for lo in range(0, total, ROWS):
        hi = min(lo + ROWS, total)
        parts = [_unit_rows(x, lo - start, hi - lo) for x, start in zip(inputs, starts)]
        t = push(tuple(parts) if tuple_wrt else parts[0])
        # the rows of a tuple result's tangents, or a constant int's zero: not one array
        if type(t) is not np.ndarray or t.ndim == 0 or t.shape[0] != hi - lo:
            return None
        if any(np.may_share_memory(t, part) for part in parts):
            t = t.copy()  # (the kept unit rows themselves, as f(x) = x returns them)
        if out is not None and t.shape[1:] != out:
            return None
        out = t.shape[1:]
        columns.append(_as_float(t, parts[0]) if len(parts) == 1 else
                       _as_float(t, np.result_type(*parts)))
    if out is None:  # no input element at all: the per-column path shapes the empties
        return None
    rows = columns[0] if len(columns) == 1 else np.concatenate(columns, axis=0)
    stacked = rows.transpose((*range(1, rows.ndim), 0))  # out.shape + (total,)
    return [stacked[..., a:b].reshape(out + x.shape)
            for x, a, b in zip(inputs, starts[:-1], starts[1:])]


def _by_columns(push: Callable[[Any], Any], inputs: list[Any], values: list[Any],
                wrt: list[int], tuple_wrt: bool) -> list[np.ndarray]:
    """One ``jvp`` pass per element of each input: the columns of every block."""
    blocks = []
    for i, x in zip(wrt, inputs):
        columns, out = [], None
        for j in range(_size(x)):
            parts = [_unit(x, j) if k == i else _zero(values[k]) for k in wrt]
            out, t = push(tuple(parts) if tuple_wrt else parts[0])
            if _is_record(t):
                raise _StructuredResult
            columns.append(_as_float(t, x))
        if not columns:  # an empty input: one pass with zero tangents gives out's shape
            out, _ = push(tuple(_zero(values[k]) for k in wrt) if tuple_wrt
                          else _zero(values[wrt[0]]))
        stacked = np.stack(columns, axis=-1) if columns else np.zeros(np.shape(out) + (0,))
        blocks.append(stacked.reshape(np.shape(out) + np.shape(x)))
    return blocks


def _by_rows(pull: Callable[[Any], Any], out: Any, inputs: list[Any],
             tuple_wrt: bool) -> list[np.ndarray]:
    """One ``vjp`` pass per element of the result: the rows of every block at once."""
    rows: list[list[np.ndarray]] = [[] for _ in inputs]
    for k in range(_size(out)):
        cotangents = pull(_unit(out, k))
        if not tuple_wrt:
            cotangents = (cotangents,)
        for row, c in zip(rows, cotangents):
            row.append(_as_float(c, out))
    return [(np.stack(row, axis=0) if row else np.zeros((0,) + np.shape(x)))
            .reshape(np.shape(out) + np.shape(x)) for row, x in zip(rows, inputs)]


# --- structured arguments and results: nested blocks -------------------------------------

class _StructuredResult(Exception):
    """The result turned out to be a dict, namedtuple or dataclass: nested blocks."""


def _zero_tree(x: Any) -> Any:
    return tree_map(_zero, x)


def _is_record(value: Any) -> bool:
    """A structured result with keys or fields (tuples and lists keep their old layout)."""
    return S.is_structured(value) and type(value) not in (tuple, list)


def tree_blocks(push: Callable[[Any], Any], inputs: list[Any], tuple_wrt: bool) -> list[Any]:
    """Forward-mode Jacobian blocks where an input or the result is a structure (dict,
    list, namedtuple, dataclass): one block per input, structured like the result (outer)
    and, inside, like the input, each leaf of shape ``out_leaf.shape + in_leaf.shape``
    (JAX's convention: ``J[out_key][in_key]``, so a Hessian is ``H[k1][k2]``)."""
    zeros = [_zero_tree(x) for x in inputs]
    blocks = []
    for n, x in enumerate(inputs):
        leaves = _leaves(x)
        per_leaf: list[list[np.ndarray]] = []  # [in leaf][out leaf] -> block
        template = None
        for leaf_index, leaf in enumerate(leaves):
            columns = []
            for j in range(_size(leaf)):
                unit = _unit_tree(x, leaf_index, j)
                parts = [unit if k == n else zeros[k] for k in range(len(inputs))]
                _, t = push(tuple(parts) if tuple_wrt else parts[0])
                template = t if template is None else template
                columns.append(_leaves(t))
            outs = _leaves(template) if template is not None else []
            per_leaf.append([
                np.stack([_as_float(c[o]) for c in columns], axis=-1)
                .reshape(np.shape(outs[o]) + np.shape(leaf)) if columns else
                np.zeros(np.shape(leaf)) for o in range(len(outs))])
        if template is None:
            blocks.append(None)
            continue
        blocks.append(_nest(per_leaf, template, x))
    return blocks


def _nest(per_leaf: list[list[np.ndarray]], template: Any, x: Any) -> Any:
    """Blocks ``per_leaf[in leaf][out leaf]`` nested as the result (outer) and the input
    (inner) are."""
    out_counter = iter(range(1 << 30))

    def inner(_out_leaf: Any) -> Any:
        o = next(out_counter)
        in_counter = iter(range(1 << 30))
        return tree_map(lambda _leaf: per_leaf[next(in_counter)][o], x)
    return tree_map(inner, template)


def _leaves(tree: Any) -> list[Any]:
    return [tree] if not S.is_structured(tree) else tree_leaves(tree)


def _unit_tree(x: Any, leaf_index: int, j: int) -> Any:
    counter = iter(range(1 << 30))
    return tree_map(lambda leaf: _unit(leaf, j) if next(counter) == leaf_index
                      else _zero(leaf), x)
