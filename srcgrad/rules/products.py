"""Products: ``matmul dot inner outer``, bilinear (``einsum``: :mod:`.einsum`).

Forward mode is derived (kind ``BILINEAR``: the op applied to one tangent and the other
primal, summed). The VJPs depend on ranks (1-D operands of ``matmul``, ``dot``'s N-D rule,
scalars), so each product ``p`` has two named adjoint primitives:

- ``p_adjoint_x(c, y, shape)``: the cotangent of ``x`` in ``p(x, y)`` for output cotangent
  ``c``, where ``shape`` is ``x``'s (batch broadcasting summed away);
- ``p_adjoint_y(x, c, shape)``: the same for ``y``.

They are bilinear too, and their own VJPs close the loop (``A_x`` is the adjoint of
``X -> p(X, y)``, so ``<G, A_x(c, y)> = <c, p(G, y)>``):

=================  ============================================================
rule               VJP
=================  ============================================================
p(x, y)            x: ``p_adjoint_x(g, y, x_shape)``   y: ``p_adjoint_y(x, g, y_shape)``
p_adjoint_x(c, y)  c: ``p(g, y)``                      y: ``p_adjoint_y(g, c, y_shape)``
p_adjoint_y(x, c)  x: ``p_adjoint_x(c, g, x_shape)``   c: ``p(x, g)``
outer(x, y)        x: ``reshape(matmul(g, ravel(y)), x_shape)``, y likewise
=================  ============================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .dispatch import as_array, dispatching
from .helpers import unbroadcast
from .registry import BILINEAR, defrule
from .torch_names import matmul_node

Shape = tuple[int, ...]


# --- matmul: 1-D operands are promoted (x to a row, y to a column) -------------------------
def _matmul_out_as_matrix(c: Any, x_ndim: int, y_ndim: int) -> Any:
    """Re-insert the axes ``matmul`` dropped for 1-D operands (y's column, then x's row)."""
    c = as_array(c)
    if y_ndim == 1:
        c = c[..., None]
    if x_ndim == 1:
        c = c[..., None, :]
    return c


def _matmul_adjoint_x(c: Any, y: Any, shape: Shape) -> Any:
    if type(c) is np.ndarray and type(y) is np.ndarray and y.ndim == 2 and c.ndim == len(shape):
        # a matrix or vector x times a matrix (a layer, per call on small arrays): the same
        # product as below, without its Python-level swapaxes, reshape and unbroadcast
        if c.ndim == 2:
            return np.matmul(c, y.T)
        if c.ndim == 1:
            return np.matmul(c[None], y.T)[0]
    y = as_array(y)
    c = _matmul_out_as_matrix(c, len(shape), y.ndim)
    y2 = y[:, None] if y.ndim == 1 else y
    gx = np.matmul(c, np.swapaxes(y2, -1, -2))
    promoted = (1, *shape) if len(shape) == 1 else shape
    return np.reshape(unbroadcast(gx, promoted), shape)


def _matmul_adjoint_y(x: Any, c: Any, shape: Shape) -> Any:
    if type(x) is np.ndarray and type(c) is np.ndarray and len(shape) == 2 and x.ndim > 2 \
            and x.shape[:-1] == c.shape[:-1]:
        # a matrix y applied to a batch (``x @ W``): its cotangent sums x^T c over the batch,
        # which is one 2-d product of the batch's rows, not a batched matmul and a sum.
        # Tested first, before any conversion: attention's projections take it per weight
        return x.reshape(-1, x.shape[-1]).T @ c.reshape(-1, c.shape[-1])
    if type(x) is np.ndarray and type(c) is np.ndarray and len(shape) == 2 \
            and x.ndim == c.ndim and x.ndim <= 2:
        # the matrix of a layer applied to a matrix or a vector: the same product as below
        return np.matmul(x.T, c) if x.ndim == 2 else np.matmul(x[:, None], c[None])
    x = as_array(x)
    c = _matmul_out_as_matrix(c, x.ndim, len(shape))
    x2 = x[None, :] if x.ndim == 1 else x
    gy = np.matmul(np.swapaxes(x2, -1, -2), c)
    promoted = (*shape, 1) if len(shape) == 1 else shape
    return np.reshape(unbroadcast(gy, promoted), shape)


# --- dot: sums x's last axis against y's last (1-D) or second-to-last axis -----------------
def _dot_adjoint_x(c: Any, y: Any, shape: Shape) -> Any:
    y = as_array(y)
    if not shape or y.ndim == 0:  # a scalar operand: dot is multiply
        return unbroadcast(np.multiply(c, y), shape)
    k = len(shape) - 1  # c's leading axes are x's free axes
    y_contracted = max(y.ndim - 2, 0)
    y_free = [a for a in range(y.ndim) if a != y_contracted]
    return np.tensordot(c, y, axes=(list(range(k, np.ndim(c))), y_free))


def _dot_adjoint_y(x: Any, c: Any, shape: Shape) -> Any:
    x = as_array(x)
    if not shape or x.ndim == 0:
        return unbroadcast(np.multiply(x, c), shape)
    k = x.ndim - 1
    gy = np.tensordot(x, c, axes=(list(range(k)), list(range(k))))  # (n, *y_free)
    return np.moveaxis(gy, 0, max(len(shape) - 2, 0))


# --- inner: sums the last axes of both ---------------------------------------------------
def _inner_adjoint_x(c: Any, y: Any, shape: Shape) -> Any:
    y = as_array(y)
    if not shape or y.ndim == 0:
        return unbroadcast(np.multiply(c, y), shape)
    k = len(shape) - 1
    return np.tensordot(c, y, axes=(list(range(k, np.ndim(c))), list(range(y.ndim - 1))))


def _inner_adjoint_y(x: Any, c: Any, shape: Shape) -> Any:
    x = as_array(x)
    if not shape or x.ndim == 0:
        return unbroadcast(np.multiply(x, c), shape)
    k = x.ndim - 1
    return np.tensordot(c, x, axes=(list(range(k)), list(range(k))))


def _primitive(name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    def adjoint(a: Any, b: Any, shape: Shape) -> Any:
        return impl(a, b, tuple(shape))

    adjoint.__name__ = adjoint.__qualname__ = name
    adjoint.__doc__ = f"The {name.replace('_', ' ')} (see the module docstring)."
    adjoint.__module__ = __name__
    return dispatching(adjoint)


matmul_adjoint_x = _primitive("matmul_adjoint_x", _matmul_adjoint_x)
matmul_adjoint_y = _primitive("matmul_adjoint_y", _matmul_adjoint_y)
dot_adjoint_x = _primitive("dot_adjoint_x", _dot_adjoint_x)
dot_adjoint_y = _primitive("dot_adjoint_y", _dot_adjoint_y)
inner_adjoint_x = _primitive("inner_adjoint_x", _inner_adjoint_x)
inner_adjoint_y = _primitive("inner_adjoint_y", _inner_adjoint_y)


def _product(name: str, impl: Any, adjoint_x: Any, adjoint_y: Any, **fields: Any) -> None:
    defrule(name, impl, inputs=("x", "y"), kind=BILINEAR,
            vjp={"x": lambda g, y, x_shape: adjoint_x(g, y, x_shape),
                 "y": lambda g, x, y_shape: adjoint_y(x, g, y_shape)}, **fields)
    defrule(f"{name}_adjoint_x", adjoint_x, inputs=("c", "y"), params=("shape",),
            kind=BILINEAR,
            vjp={"c": lambda g, y: impl(g, y),
                 "y": lambda g, c, y_shape: adjoint_y(g, c, y_shape)})
    defrule(f"{name}_adjoint_y", adjoint_y, inputs=("x", "c"), params=("shape",),
            kind=BILINEAR,
            vjp={"x": lambda g, c, x_shape: adjoint_x(c, g, x_shape),
                 "c": lambda g, x: impl(x, g)})


_product("matmul", np.matmul, matmul_adjoint_x, matmul_adjoint_y, torch=matmul_node, operator="@",
         pytorch=("t @ u", "t.matmul", "t.mm", "t.mv", "sg.matmul", "sg.mm", "sg.mv"), fresh=True)
_product("dot", np.dot, dot_adjoint_x, dot_adjoint_y, torch=matmul_node, methods=("dot",),
         pytorch=("t.dot", "sg.dot"))
_product("inner", np.inner, inner_adjoint_x, inner_adjoint_y)
defrule("outer", np.outer, inputs=("x", "y"), kind=BILINEAR,
        vjp={"x": lambda g, y, x_shape: np.reshape(np.matmul(g, np.ravel(y)), x_shape),
             "y": lambda g, x, y_shape: np.reshape(np.matmul(np.ravel(x), g), y_shape)},
        torch=("MulBackward0", 2),
        pytorch=("t.outer", "sg.outer"))
