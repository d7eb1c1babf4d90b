# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one
from srcgrad.rules.helpers import scatter_add, unbroadcast, unreduce
from srcgrad.rules.runtime_ops import index_put


def grad_writes_into_copy(x):
    # line 56: y = x.copy()
    y = np.copy(x)
    # line 57: y[0] = 2.0 * x[1]
    _t1 = x[1]
    _t2 = 2.0 * _t1
    y[0] = _t2
    # line 58: y += x
    y_1 = y + x
    # line 59: return np.sum(y * y)
    _t3 = y_1 * y_1
    _t4 = np.sum(_t3)
    _t5 = seed_one(_t4)
    _t6 = np.shape(_t3)
    _t7 = unreduce(_t5, _t6)
    dy_1 = _t7 * y_1
    dy_1 = dy_1 + dy_1
    # line 58: y += x
    _t8 = np.shape(y)
    dy = unbroadcast(dy_1, _t8)
    _t9 = np.shape(x)
    dx = unbroadcast(dy_1, _t9)
    # line 57: y[0] = 2.0 * x[1]
    dy_2 = index_put(dy, 0.0, 0)
    _t10 = dy[0]
    _t11 = unbroadcast(_t10, ())
    _t12 = _t11 * 2.0
    _t13 = scatter_add(_t12, _t9, 1)
    dx = dx + _t13
    # line 56: y = x.copy()
    dx = dx + dy_2
    dx = like(dx, x)
    return dx
