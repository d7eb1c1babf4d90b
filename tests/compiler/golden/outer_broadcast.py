# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import scatter_add, unbroadcast


def grad_outer_broadcast(x, y):
    # line 30: table = x[:, None] * y
    _t1 = x[:, None]
    table = _t1 * y
    # line 31: return np.sum(table * table)
    dtable = table + table
    # line 30: table = x[:, None] * y
    _t2 = dtable * y
    _t3 = np.shape(_t1)
    _t4 = unbroadcast(_t2, _t3)
    _t5 = dtable * _t1
    _t6 = np.shape(y)
    dy = unbroadcast(_t5, _t6)
    _t7 = np.shape(x)
    dx = scatter_add(_t4, _t7, (slice(None, None, None), None))
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
