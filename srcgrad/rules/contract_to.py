"""``contract_to``: an einsum cotangent whose subscripts were resolved when compiling.

Where it sits: a helper primitive of the rule table, called by the adjoints of ``einsum``
and ``contract`` (:mod:`.einsum`) when their subscripts are static text without ``...``
and without an index repeated in the differentiated operand, which is nearly always. The
adjoint's subscripts then depend on the text alone (:func:`adjoint_subscripts`), so the
emitted code carries them as a constant::

    dq = contract_to('bqk,bke->bqe', _t5, ds, k)

instead of asking ``einsum_grad_subscripts`` / ``einsum_grad_shape`` / ``rebroadcast``
for them on every call. ``contract_to(subscripts, shape, *operands)`` means

    ``np.einsum(subscripts, *operands)``, where an output index no operand has is an axis
    of length 1, then *fitted* to ``shape``: summed (keeping the axis) where the result is
    longer than ``shape`` and ``shape`` has 1, broadcast where the result has 1.

Fitting is what NumPy broadcasting asks of a cotangent: an operand's axis of length 1 that
met a longer one receives the sum along it, an index only the operand has (summed inside
the einsum) receives the cotangent broadcast along it. Fitting is linear and its adjoint
is fitting back, so the adjoint of ``contract_to`` is again a ``contract_to`` (with the
differentiated operand's subscripts as the output): derivatives of every order stay in
this one primitive. Per call the work is one dict lookup for a plan made once per
``(subscripts, shape, operand shapes)``: the contraction as a (batched) matmul where
:mod:`.contract` can, then at most a reshape, a sum and a broadcast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .contract import contract_plan
from .dispatch import as_array, dispatching
from .registry import BILINEAR, defrule

Shape = tuple[int, ...]
_Fit = Callable[..., Any]
_FITS: dict[tuple[Any, ...], _Fit] = {}
_MAX_FITS = 4096  # bounded for long-lived processes, as contract's plans


def _parts(subscripts: str) -> tuple[list[str], str]:
    lhs, arrow, out = subscripts.replace(" ", "").partition("->")
    ins = lhs.split(",")
    if not arrow:  # NumPy's implicit output: the indices seen once, alphabetically
        named = lhs.replace(",", "")
        out = "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return ins, out


def adjoint_subscripts(subscripts: Any, i: int) -> str | None:
    """Subscripts of ``contract_to(s, shape_i, g, *others)``, operand ``i``'s cotangent of
    ``einsum(subscripts, ...)``; None when the text alone cannot tell them (not a static
    string, ``...`` whose width depends on the ranks, an index repeated in operand ``i``)."""
    if not isinstance(subscripts, str) or "." in subscripts:
        return None
    ins, out = _parts(subscripts)
    if not 0 <= i < len(ins) or len(set(ins[i])) != len(ins[i]):
        return None
    return ",".join([out, *ins[:i], *ins[i + 1:]]) + "->" + ins[i]


def _make_fit(subscripts: str, shape: Shape, shapes: Sequence[Shape]
              ) -> tuple[str, _Fit | None]:
    """The einsum over the indices the operands have, and the fitting of its result (None
    when the result has ``shape`` already)."""
    ins, out = _parts(subscripts)
    if len(out) != len(shape) or len(ins) != len(shapes):
        raise ValueError(f"contract_to {subscripts!r}: an output of rank {len(out)} fitted to "
                         f"shape {shape}, {len(ins)} subscripts for {len(shapes)} operands")
    size: dict[str, int] = {}
    for s, operand_shape in zip(ins, shapes):
        for c, n in zip(s, operand_shape):
            size[c] = max(size.get(c, 1), n)
    inner = "".join(c for c in out if c in size)
    inner_subscripts = ",".join(ins) + "->" + inner
    full = tuple(size.get(c, 1) for c in out)
    reshape = full if inner != out else None
    summed = tuple(a for a, (n, m) in enumerate(zip(full, shape)) if n != m and m == 1)
    fitted = tuple(1 if a in summed else n for a, n in enumerate(full))
    broadcast = shape if fitted != shape else None
    if reshape is None and not summed and broadcast is None:
        return inner_subscripts, None

    def fit(r: Any) -> Any:
        if reshape is not None:
            r = np.reshape(r, reshape)
        if summed:
            r = np.sum(r, axis=summed, keepdims=True)
        if broadcast is not None:
            r = np.broadcast_to(r, broadcast)
        return r

    return inner_subscripts, fit


@dispatching
def contract_to(subscripts: str, shape: Shape, *operands: Any) -> Any:
    """``np.einsum(subscripts, *operands)`` fitted to ``shape`` (module docstring)."""
    if all(type(x) is np.ndarray for x in operands):
        # per call, per adjoint: one dict lookup of the plan for these shapes and dtypes
        key = (subscripts, shape, *[(x.shape, x.dtype) for x in operands])
        try:
            run = _FITS[key]
        except (KeyError, TypeError):  # (a shape given as a list is not hashable)
            shape = tuple(shape)
            key = (subscripts, shape, *[(x.shape, x.dtype) for x in operands])
            run = _FITS.get(key)
            if run is None:
                if len(_FITS) >= _MAX_FITS:
                    _FITS.clear()
                run = _FITS[key] = _plan(subscripts, shape, operands)
        return run(*operands)
    # floats, Dask/CuPy arrays: the einsum itself and the fitting by calls that dispatch
    arrays = [as_array(x) for x in operands]
    inner, fit = _make_fit(subscripts, tuple(shape), [np.shape(x) for x in arrays])
    product = np.einsum(inner, *arrays)
    return product if fit is None else fit(product)


def _plan(subscripts: str, shape: Shape, arrays: Sequence[np.ndarray]) -> _Fit:
    inner, fit = _make_fit(subscripts, shape, [x.shape for x in arrays])
    # contract's plan (a matmul) for float operands; other dtypes take np.einsum itself
    product = contract_plan(inner, arrays) if all(
        x.dtype.kind in "fc" for x in arrays) else None
    if product is None:
        if fit is None:
            return lambda *ops: np.einsum(inner, *ops)
        return lambda *ops: fit(np.einsum(inner, *ops))
    if fit is None:  # the product has the operand's shape already (the usual case)
        return product
    return lambda *ops: fit(product(*ops))


def _contract_to_vjp(g: Any, operands: list[Any], operands_shape: tuple[Shape, ...],
                     subscripts: str, i: int) -> Any:
    # fitting's adjoint is fitting back, the einsum's is the einsum onto operand i: one
    # contract_to (module docstring); the subscripts are always explicit, without '...'
    adjoint = adjoint_subscripts(subscripts, i)
    if adjoint is None:
        raise ValueError(f"contract_to {subscripts!r}: operand {i} repeats an index")
    others = [op for j, op in enumerate(operands) if j != i]
    return contract_to(adjoint, operands_shape[i], g, *others)


defrule("contract_to", contract_to, inputs=("operands",), params=("subscripts", "shape"),
        variadic="operands", kind=BILINEAR, form="subscripts, shape, *operands",
        view=True,  # the fitted result may be a broadcast view of the product
        vjp={"operands": _contract_to_vjp})
