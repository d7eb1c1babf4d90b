# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one
from srcgrad.rules.helpers import scatter_add, unbroadcast, unreduce


def grad_outer_broadcast(x, y):
    # line 30: table = x[:, None] * y
    _t1 = x[:, None]
    table = _t1 * y
    # line 31: return np.sum(table * table)
    _t2 = table * table
    _t3 = np.sum(_t2)
    _t4 = seed_one(_t3)
    _t5 = np.shape(_t2)
    _t6 = unreduce(_t4, _t5)
    dtable = _t6 * table
    dtable = dtable + dtable
    # line 30: table = x[:, None] * y
    _t7 = dtable * y
    _t8 = np.shape(_t1)
    _t9 = unbroadcast(_t7, _t8)
    _t10 = dtable * _t1
    _t11 = np.shape(y)
    dy = unbroadcast(_t10, _t11)
    _t12 = np.shape(x)
    dx = scatter_add(_t9, _t12, (slice(None, None, None), None))
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
