"""Products of whole arrays: ``tensordot``, ``kron``, ``cross`` (bilinear).

Each follows :mod:`.products`' pattern: forward mode is derived (kind ``BILINEAR``), and
product ``p`` has two adjoint primitives, bilinear too, whose own VJPs close the loop, so
every derivative of any order is a call of ``p`` or of its adjoints:

=================  ============================================================
rule               VJP
=================  ============================================================
p(a, b)            a: ``p_adjoint_a(g, b, a_shape)``   b: ``p_adjoint_b(a, g, b_shape)``
p_adjoint_a(c, b)  c: ``p(g, b)``                      b: ``p_adjoint_b(g, c, b_shape)``
p_adjoint_b(a, c)  a: ``p_adjoint_a(c, g, a_shape)``   c: ``p(a, g)``
=================  ============================================================

(each with the product's static parameters: ``axes`` for tensordot; ``axisa axisb axisc
axis`` for cross). The adjoints are einsums of the cotangent with the other operand:
tensordot's contracted axes become shared letters; kron's output is viewed as the grid
``(a0, b0, a1, b1, ...)`` of its operands' (rank-promoted) axes; cross contracts with the
Levi-Civita symbol (2-vectors are 3-vectors with a zero third component; two of them give
the scalar third component, as NumPy's ``cross`` does). ``cross`` is srcgrad's own
implementation of NumPy's (same result, without NumPy 2's deprecation warning for
2-vectors, so the derivative code that calls it stays quiet).
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from .contract import contract
from .dispatch import as_array, dispatching
from .helpers import unbroadcast
from .registry import BILINEAR, defrule

Shape = tuple[int, ...]
_L = string.ascii_letters


# --- tensordot ---------------------------------------------------------------------------
def _tensordot_subscripts(a_ndim: int, b_ndim: int, axes: Any) -> tuple[str, str, str]:
    """einsum subscripts ``(a, b, out)`` of ``np.tensordot(a, b, axes)``."""
    if isinstance(axes, (int, np.integer)):
        pairs = list(zip(range(a_ndim - int(axes), a_ndim), range(int(axes))))
    else:
        xa, xb = axes
        xa = [xa] if isinstance(xa, (int, np.integer)) else list(xa)
        xb = [xb] if isinstance(xb, (int, np.integer)) else list(xb)
        pairs = [(int(i) % a_ndim, int(j) % b_ndim) for i, j in zip(xa, xb)]
    sa = list(_L[:a_ndim])
    sb = list(_L[a_ndim:a_ndim + b_ndim])
    for i, j in pairs:
        sb[j] = sa[i]
    contracted = {sa[i] for i, _ in pairs}
    out = [c for c in sa if c not in contracted] + [c for c in sb if c not in contracted]
    return "".join(sa), "".join(sb), "".join(out)


@dispatching
def tensordot_adjoint_a(c: Any, b: Any, shape: Shape, axes: Any = 2) -> Any:
    """The cotangent of ``a`` (of ``shape``) in ``tensordot(a, b, axes)`` for cotangent ``c``."""
    sa, sb, so = _tensordot_subscripts(len(tuple(shape)), np.ndim(b), axes)
    return contract(f"{so},{sb}->{sa}", c, b)


@dispatching
def tensordot_adjoint_b(a: Any, c: Any, shape: Shape, axes: Any = 2) -> Any:
    """The cotangent of ``b`` (of ``shape``) in ``tensordot(a, b, axes)`` for cotangent ``c``."""
    sa, sb, so = _tensordot_subscripts(np.ndim(a), len(tuple(shape)), axes)
    return contract(f"{sa},{so}->{sb}", a, c)


# --- kron --------------------------------------------------------------------------------
def _kron_layout(a_shape: Shape, b_shape: Shape) -> tuple[Shape, Shape, Shape, str, str, str]:
    """Promoted shapes of ``a`` and ``b``, the output's grid shape, and einsum subscripts
    of ``a``, ``b`` and the grid ``(a0, b0, a1, b1, ...)``."""
    n = max(len(a_shape), len(b_shape))
    ap = (1,) * (n - len(a_shape)) + tuple(a_shape)
    bp = (1,) * (n - len(b_shape)) + tuple(b_shape)
    grid = tuple(m for pair in zip(ap, bp) for m in pair)
    sa, sb = _L[:n], _L[n:2 * n]
    sg = "".join(x + y for x, y in zip(sa, sb))
    return ap, bp, grid, sa, sb, sg


@dispatching
def kron_adjoint_a(c: Any, b: Any, shape: Shape) -> Any:
    """The cotangent of ``a`` (of ``shape``) in ``kron(a, b)`` for cotangent ``c``."""
    shape = tuple(shape)
    ap, bp, grid, sa, sb, sg = _kron_layout(shape, np.shape(b))
    ga = np.einsum(f"{sg},{sb}->{sa}", np.reshape(c, grid), np.reshape(b, bp))
    return np.reshape(ga, shape)


@dispatching
def kron_adjoint_b(a: Any, c: Any, shape: Shape) -> Any:
    """The cotangent of ``b`` (of ``shape``) in ``kron(a, b)`` for cotangent ``c``."""
    shape = tuple(shape)
    ap, bp, grid, sa, sb, sg = _kron_layout(np.shape(a), shape)
    gb = np.einsum(f"{sa},{sg}->{sb}", np.reshape(a, ap), np.reshape(c, grid))
    return np.reshape(gb, shape)


# --- cross -------------------------------------------------------------------------------
_EPS = np.zeros((3, 3, 3))
for _i, _j, _k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
    _EPS[_i, _j, _k], _EPS[_j, _i, _k] = 1.0, -1.0


def _cross_axes(axisa: int, axisb: int, axisc: int, axis: Any) -> tuple[int, int, int]:
    return (axis, axis, axis) if axis is not None else (axisa, axisb, axisc)


def _as_three(v: Any) -> Any:
    """Vectors on the last axis, 2-vectors given a zero third component."""
    if np.shape(v)[-1] != 2:
        return v
    return np.concatenate([v, np.zeros_like(v, shape=np.shape(v)[:-1] + (1,))], -1)


@dispatching
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Any = None) -> Any:
    """``np.cross(a, b, axisa, axisb, axisc, axis)``."""
    axisa, axisb, axisc = _cross_axes(axisa, axisb, axisc, axis)
    am = np.moveaxis(as_array(a), axisa, -1)
    bm = np.moveaxis(as_array(b), axisb, -1)
    if am.shape[-1] == 2 and bm.shape[-1] == 2:
        return am[..., 0] * bm[..., 1] - am[..., 1] * bm[..., 0]
    return np.moveaxis(np.cross(_as_three(am), _as_three(bm)), -1, axisc)


def _levi_civita(na: int, nb: int, dtype: Any) -> Any:
    """The symbol for ``na``- and ``nb``-vectors in ``dtype``: shape ``(na, nb, 3)``, or
    ``(2, 2, 1)`` when both are 2-vectors (their product is the third component alone)."""
    return (_EPS[:na, :nb, 2:] if na == nb == 2 else _EPS[:na, :nb, :]).astype(dtype)


def _moved_cotangent(c: Any, axisc: int, both_two: bool) -> Any:
    return as_array(c)[..., None] if both_two else np.moveaxis(as_array(c), axisc, -1)


def _moved_shape(shape: Shape, axis: int) -> Shape:
    shape = tuple(shape)
    a = axis % len(shape)
    return shape[:a] + shape[a + 1:] + (shape[a],)


@dispatching
def cross_adjoint_a(c: Any, b: Any, shape: Shape, axisa: int = -1, axisb: int = -1,
                    axisc: int = -1, axis: Any = None) -> Any:
    """The cotangent of ``a`` (of ``shape``) in ``cross(a, b, ...)`` for cotangent ``c``."""
    axisa, axisb, axisc = _cross_axes(axisa, axisb, axisc, axis)
    bm = np.moveaxis(as_array(b), axisb, -1)
    na, nb = tuple(shape)[axisa], bm.shape[-1]
    dtype = np.result_type(c, b)
    cm = _moved_cotangent(c, axisc, na == nb == 2)
    ga = np.einsum("...k,...j,ijk->...i", cm, bm, _levi_civita(na, nb, dtype))
    return np.moveaxis(unbroadcast(ga, _moved_shape(shape, axisa)), -1, axisa)


@dispatching
def cross_adjoint_b(a: Any, c: Any, shape: Shape, axisa: int = -1, axisb: int = -1,
                    axisc: int = -1, axis: Any = None) -> Any:
    """The cotangent of ``b`` (of ``shape``) in ``cross(a, b, ...)`` for cotangent ``c``."""
    axisa, axisb, axisc = _cross_axes(axisa, axisb, axisc, axis)
    am = np.moveaxis(as_array(a), axisa, -1)
    na, nb = am.shape[-1], tuple(shape)[axisb]
    dtype = np.result_type(a, c)
    cm = _moved_cotangent(c, axisc, na == nb == 2)
    gb = np.einsum("...i,...k,ijk->...j", am, cm, _levi_civita(na, nb, dtype))
    return np.moveaxis(unbroadcast(gb, _moved_shape(shape, axisb)), -1, axisb)


# --- the rules ---------------------------------------------------------------------------
defrule("tensordot", np.tensordot, inputs=("a", "b"), params=("axes",), kind=BILINEAR,
        form="a, b, axes=2",
        vjp={"a": lambda g, b, a_shape, axes: tensordot_adjoint_a(g, b, a_shape, axes),
             "b": lambda g, a, b_shape, axes: tensordot_adjoint_b(a, g, b_shape, axes)},
        # PyTorch ends in a view (one edge); here the node is the product's own, an edge
        # per operand
        torch="ViewBackward0", pytorch=("sg.tensordot",))
defrule("tensordot_adjoint_a", tensordot_adjoint_a, inputs=("c", "b"),
        params=("shape", "axes"), kind=BILINEAR, form="c, b, shape, axes=2",
        vjp={"c": lambda g, b, axes: np.tensordot(g, b, axes),
             "b": lambda g, c, b_shape, axes: tensordot_adjoint_b(g, c, b_shape, axes)})
defrule("tensordot_adjoint_b", tensordot_adjoint_b, inputs=("a", "c"),
        params=("shape", "axes"), kind=BILINEAR, form="a, c, shape, axes=2",
        vjp={"a": lambda g, c, a_shape, axes: tensordot_adjoint_a(c, g, a_shape, axes),
             "c": lambda g, a, axes: np.tensordot(a, g, axes)})

defrule("kron", np.kron, inputs=("a", "b"), kind=BILINEAR,
        vjp={"a": lambda g, b, a_shape: kron_adjoint_a(g, b, a_shape),
             "b": lambda g, a, b_shape: kron_adjoint_b(a, g, b_shape)},
        torch="UnsafeViewBackward0", pytorch=("sg.kron",))
defrule("kron_adjoint_a", kron_adjoint_a, inputs=("c", "b"), params=("shape",),
        kind=BILINEAR,
        vjp={"c": lambda g, b: np.kron(g, b),
             "b": lambda g, c, b_shape: kron_adjoint_b(g, c, b_shape)})
defrule("kron_adjoint_b", kron_adjoint_b, inputs=("a", "c"), params=("shape",),
        kind=BILINEAR,
        vjp={"a": lambda g, c, a_shape: kron_adjoint_a(c, g, a_shape),
             "c": lambda g, a: np.kron(a, g)})

_AXES = ("axisa", "axisb", "axisc", "axis")
_AXES_FORM = "axisa=-1, axisb=-1, axisc=-1, axis=None"
defrule("cross", cross, inputs=("a", "b"), params=_AXES, kind=BILINEAR,
        form=f"a, b, {_AXES_FORM}", aliases=(np.cross,),
        vjp={"a": lambda g, b, a_shape, axisa, axisb, axisc, axis:
             cross_adjoint_a(g, b, a_shape, axisa, axisb, axisc, axis),
             "b": lambda g, a, b_shape, axisa, axisb, axisc, axis:
             cross_adjoint_b(a, g, b_shape, axisa, axisb, axisc, axis)},
        torch="LinalgCrossBackward0", pytorch=("sg.cross", "sg.linalg.cross"))
defrule("cross_adjoint_a", cross_adjoint_a, inputs=("c", "b"), params=("shape", *_AXES),
        kind=BILINEAR, form=f"c, b, shape, {_AXES_FORM}",
        vjp={"c": lambda g, b, axisa, axisb, axisc, axis:
             cross(g, b, axisa, axisb, axisc, axis),
             "b": lambda g, c, b_shape, axisa, axisb, axisc, axis:
             cross_adjoint_b(g, c, b_shape, axisa, axisb, axisc, axis)})
defrule("cross_adjoint_b", cross_adjoint_b, inputs=("a", "c"), params=("shape", *_AXES),
        kind=BILINEAR, form=f"a, c, shape, {_AXES_FORM}",
        vjp={"a": lambda g, c, a_shape, axisa, axisb, axisc, axis:
             cross_adjoint_a(c, g, a_shape, axisa, axisb, axisc, axis),
             "c": lambda g, a, axisa, axisb, axisc, axis:
             cross(a, g, axisa, axisb, axisc, axis)})
