# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import scatter_add, unbroadcast
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
    dy_1 = y_1 + y_1
    # line 58: y += x
    _t3 = np.shape(y)
    dy = unbroadcast(dy_1, _t3)
    _t4 = np.shape(x)
    dx = unbroadcast(dy_1, _t4)
    # line 57: y[0] = 2.0 * x[1]
    dy_2 = index_put(dy, 0.0, 0)
    _t5 = dy[0]
    _t6 = unbroadcast(_t5, ())
    _t7 = _t6 * 2.0
    _t8 = scatter_add(_t7, _t4, 1)
    dx = dx + _t8
    # line 56: y = x.copy()
    dx = dx + dy_2
    dx = like(dx, x)
    return dx
