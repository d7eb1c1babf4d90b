# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one
from srcgrad.rules.helpers import reduced_count, unreduce
from srcgrad.rules.products import matmul_adjoint_x, matmul_adjoint_y


def grad_methods(x):
    # line 51: m = x.reshape(2, 3)
    m = np.reshape(x, (2, 3))
    # line 52: return (m.T @ m).sum(axis=0).mean()
    _t1 = np.transpose(m)
    _t2 = _t1 @ m
    _t3 = np.sum(_t2, 0)
    _t4 = np.mean(_t3)
    _t5 = seed_one(_t4)
    _t6 = np.shape(_t3)
    _t7 = unreduce(_t5, _t6)
    _t8 = reduced_count(_t6)
    _t9 = _t7 / _t8
    _t10 = np.shape(_t2)
    _t11 = unreduce(_t9, _t10, 0)
    _t12 = np.shape(_t1)
    _t13 = matmul_adjoint_x(_t11, m, _t12)
    _t14 = np.shape(m)
    dm = matmul_adjoint_y(_t1, _t11, _t14)
    _t15 = np.transpose(_t13)
    dm = dm + _t15
    # line 51: m = x.reshape(2, 3)
    _t16 = np.shape(x)
    dx = np.reshape(dm, _t16)
    dx = like(dx, x)
    return dx
