"""``contract``: an einsum run on NumPy's fastest kernel, for the derivative code.

Where it sits: a helper primitive of the rule table. ``np.einsum`` without ``optimize``
runs every contraction in its own C loop, never in BLAS; the adjoints of ``einsum`` and
``tensordot`` (and their tangents, which re-apply the primitive) call :func:`contract`
instead, which means exactly ``np.einsum(subscripts, *operands)`` but runs

- two operands as one ``matmul`` (batched where indices appear in both operands and the
  output): each operand is summed over the indices only it has, transposed to
  ``(batch, kept, contracted)``, reshaped to 3-d, multiplied, and the product reshaped and
  transposed to the output's order; with nothing contracted, a broadcast multiply;
- three or more operands along the contraction path NumPy's greedy optimiser finds;

and falls back to ``np.einsum`` for what a plan does not cover (``...``, repeated
indices, size-1 axes broadcasting, non-float dtypes). A plan depends only on the
subscripts and the shapes, so it is made once per ``(subscripts, shapes)`` and cached: the
per-call cost is a dict lookup.

Its rule is einsum's, multilinear (:mod:`.einsum` registers it beside ``einsum``), so
every derivative of any order of a ``contract`` is again a ``contract``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching, foreign

Shape = tuple[int, ...]
Plan = Callable[..., Any]
_PLANS: dict[tuple[str, tuple[Shape, ...]], Plan | None] = {}
_MAX_PLANS = 4096  # one entry per (subscripts, shapes): bounded for long-lived processes


def _pair_plan(subscripts: str, a_shape: Shape, b_shape: Shape) -> Plan | None:
    """``(x, y) -> einsum(subscripts, x, y)`` through one matmul, or None if not covered."""
    lhs, arrow, out = subscripts.replace(" ", "").partition("->")
    ins = lhs.split(",")
    if not arrow or "." in subscripts or len(ins) != 2:
        return None
    a, b = ins
    if any(len(set(s)) != len(s) for s in (a, b, out)):
        return None
    size: dict[str, int] = {}
    for s, shape in ((a, a_shape), (b, b_shape)):
        if len(s) != len(shape):
            return None
        for c, n in zip(s, shape):
            if size.setdefault(c, n) != n:  # a size-1 axis broadcasting: einsum's business
                return None
    if any(c not in size for c in out):
        return None
    batch = [c for c in out if c in a and c in b]
    a_kept = [c for c in out if c in a and c not in b]
    b_kept = [c for c in out if c in b and c not in a]
    summed = [c for c in a if c in b and c not in out]
    a_sum = tuple(i for i, c in enumerate(a) if c not in b and c not in out)
    b_sum = tuple(i for i, c in enumerate(b) if c not in a and c not in out)
    a_left = [c for c in a if c in b or c in out]
    b_left = [c for c in b if c in a or c in out]
    perm_a = tuple(a_left.index(c) for c in batch + a_kept + summed)
    perm_b = tuple(b_left.index(c) for c in batch + summed + b_kept)
    nb, m, k, n = (math.prod(size[c] for c in group)
                   for group in (batch, a_kept, summed, b_kept))
    grouped = batch + a_kept + b_kept
    grouped_shape = tuple(size[c] for c in grouped)
    perm_out = tuple(grouped.index(c) for c in out)
    identity_out = perm_out == tuple(range(len(out)))
    x_shape, y_shape = ((nb, m, k), (nb, k, n)) if summed else ((nb, m, 1), (nb, 1, n))
    if nb == 1 and summed:  # a plain 2-d matmul: no batch loop inside NumPy
        x_shape, y_shape = (m, k), (k, n)

    def run(x: Any, y: Any) -> Any:
        if a_sum:
            x = x.sum(axis=a_sum)
        if b_sum:
            y = y.sum(axis=b_sum)
        x = x.transpose(perm_a).reshape(x_shape)
        y = y.transpose(perm_b).reshape(y_shape)
        product = (x @ y) if summed else (x * y)
        product = product.reshape(grouped_shape)
        product = product if identity_out else product.transpose(perm_out)
        return product[()] if not out else product  # a scalar, as einsum gives

    return run


def _path_plan(subscripts: str, arrays: Sequence[np.ndarray]) -> Plan:
    """Three or more operands: NumPy's greedy contraction path, found once."""
    path = np.einsum_path(subscripts, *arrays, optimize="greedy")[0]
    return lambda *ops: np.einsum(subscripts, *ops, optimize=path)


def contract_plan(subscripts: str, arrays: Sequence[np.ndarray]) -> Plan | None:
    """How to run ``einsum(subscripts, *arrays)`` on arrays of these shapes (and float
    dtypes), or None where ``np.einsum`` itself is the way."""
    if any(x.dtype.kind not in "fc" for x in arrays):
        return None
    if len(arrays) == 2:
        return _pair_plan(subscripts, arrays[0].shape, arrays[1].shape)
    if len(arrays) > 2 and "->" in subscripts:
        return _path_plan(subscripts, arrays)
    return None


@dispatching
def contract(subscripts: str, *operands: Any) -> Any:
    """``np.einsum(subscripts, *operands)``, through matmul or an optimised path where the
    subscripts allow (module docstring)."""
    arrays = [as_array(x) for x in operands]
    if any(foreign(x) for x in arrays):  # Dask/CuPy: their own einsum (the plan's methods are
        return np.einsum(subscripts, *arrays)  # ndarray's)
    key = (subscripts, tuple(x.shape for x in arrays))
    try:
        plan = _PLANS[key]
    except KeyError:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        plan = _PLANS[key] = contract_plan(subscripts, arrays)
    # the plan was made for float operands of these shapes; another dtype takes einsum
    if plan is None or any(x.dtype.kind not in "fc" for x in arrays):
        return np.einsum(subscripts, *arrays)
    return plan(*arrays)
