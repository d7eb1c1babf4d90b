"""Corpus: Python operators ``+ - * / ** @``, unary minus, constants on either side,
broadcasting between operands, and comparisons feeding arithmetic."""

import numpy as np

from . import ALL, ND, F, program


@program(F(), F())
def op_add_sub(x, y):
    return np.sum(x + y - 2.0 * x + 1.0 - y * y)


@program(F(), F())
def op_mul(x, y):
    return np.sum(x * y * x)


@program(F(), F(lo=0.5, hi=2.0))
def op_div(x, y):
    return np.sum(x / y + 1.0 / y - y / 3.0)


@program(F(lo=0.5, hi=2.0))
def op_pow_const(x):
    return np.sum(x ** 3 + x ** 0.5 + x ** -1.5)


@program(F(lo=0.5, hi=2.0), F())
def op_pow_both(x, y):
    return np.sum(x ** y)


@program(F())
def op_rpow(x):
    return np.sum(2.0 ** x + 3 ** x)


@program(F(), F())
def op_unary_minus(x, y):
    return np.sum(-x * y + -(x - y))


@program(F(), F())
def op_radd_rsub_rmul(x, y):
    return np.sum(1.0 - x + 2.0 * y - (3.0 + x) * (4.0 - y))


@program(F((3, 4)), F((4,)), kinds=ND)
def op_matmul_mv(A, v):
    return np.sum(np.tanh(A @ v))


@program(F((2, 3)), F((3, 4)), kinds=ND, wrt=(0, 1))
def op_matmul_mm(A, B):
    C = A @ B
    return np.sum(C * C)


@program(F((4,)), F((4,)), kinds=ND, wrt=(0, 1))
def op_matmul_vv(u, v):
    return (u @ v) ** 2


@program(F((3, 1)), F((4,)), kinds=ND, wrt=(0, 1))
def op_broadcast(x, y):
    return np.sum(x * y + x / (y * y + 1.0) - y)


@program(F((2, 3)), F(), kinds=ND, wrt=(0, 1))
def op_broadcast_rank(A, s):
    # s is a (3,) vector: broadcast along the rows of A
    return np.sum((A - s) ** 2)


@program(F(), F())
def op_comparison_mask(x, y):
    # comparisons have no derivative: the mask is a constant factor
    return np.sum(x * (x > 0.0) + y * (y <= x))


@program(F(), F(), kinds=ALL, wrt=(0, 1))
def op_mixed(x, y):
    return np.sum((x * y - x / (1.0 + y * y)) ** 2 + -x)


@program(F((2, 2)), kinds=ND)
def op_matmul_chain(A):
    return np.sum(A @ A @ A.T)


@program(F(kind="float"), F((2, 3)), kinds=ND, wrt=(0, 1))
def mixed_float_and_array(s, A):
    # a Python float with an array: its gradient is a float, A's an array of A's dtype
    return np.sum(np.tanh(s * A) + s * s)


@program(F(kind="np.float64"), F((3,)), kinds=ND, wrt=(0, 1))
def mixed_numpy_scalar_and_array(s, x):
    # with a float32 x, s * x promotes to float64: x's gradient must come back as float32
    return np.sum(np.exp(s * x) * x)


@program(F(kind="0d"), F((3,)), F(kind="float"), kinds=ND, wrt=(0, 1, 2))
def mixed_0d_float_and_array(a, x, b):
    return np.sum(a * x * b + a * a) + b
