# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import as_python, like, seed_one
from srcgrad.rules.helpers import reduced_count, unreduce
from srcgrad.rules.products import matmul_adjoint_x, matmul_adjoint_y


def grad_methods(x):
    _t1 = np.shape(x)
    # line 51: m = x.reshape(2, 3)
    m = np.reshape(x, (2, 3))
    _t2 = np.shape(m)
    # line 52: return (m.T @ m).sum(axis=0).mean()
    _t3 = np.transpose(m)
    _t4 = np.shape(_t3)
    _t5 = _t3 @ m
    _t6 = np.shape(_t5)
    _t5 = np.sum(_t5, 0)
    _t7 = np.shape(_t5)
    _t5 = unreduce(seed_one(np.mean(_t5)), _t7)
    _t8 = reduced_count(_t7)
    try:
        _t5 = _t5 / _t8
    except (ArithmeticError, ValueError):
        _t5 = as_python(np.divide(_t5, _t8), _t5, _t8)
    _t5 = unreduce(_t5, _t6, 0)
    dm = matmul_adjoint_y(_t3, _t5, _t2) + np.transpose(matmul_adjoint_x(_t5, m, _t4))
    # line 51: m = x.reshape(2, 3)
    dx = np.reshape(dm, _t1)
    dx = like(dx, x)
    return dx
