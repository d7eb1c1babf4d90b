# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import scatter_add, unbroadcast
from srcgrad.rules.setitem import setitem


def grad_writes_into_copy(x):
    _t1 = x.shape
    # line 56: y = x.copy()
    y = np.copy(x)
    # line 57: y[0] = 2.0 * x[1]
    y[0] = 2.0 * x[1]
    _t2 = y.shape
    # line 58: y += x
    y = y + x
    # line 59: return np.sum(y * y)
    dy = y + y
    del y
    # line 58: y += x
    dy_1 = unbroadcast(dy, _t2)
    dx = unbroadcast(dy, _t1)
    del dy
    # line 57: y[0] = 2.0 * x[1]
    dy_2 = setitem(dy_1, 0.0, 0)
    dx = dx + scatter_add(unbroadcast(dy_1[0], ()) * 2.0, _t1, 1)
    del dy_1
    # line 56: y = x.copy()
    dx = dx + dy_2
    del dy_2
    dx = like(dx, x)
    return dx
