# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, update_if_fits
from srcgrad.rules.helpers import scatter_add, unbroadcast


def grad_outer_broadcast(x, y):
    _t1 = x.shape
    _t2 = y.shape
    # line 30: table = x[:, None] * y
    _t3 = x[:, None]
    _t4 = _t3.shape
    table = _t3 * y
    # line 31: return np.sum(table * table)
    dtable = table + table
    del table
    # line 30: table = x[:, None] * y
    _t5 = unbroadcast(dtable * y, _t4)
    dtable = update_if_fits(np.multiply, dtable, _t3)
    dy = unbroadcast(dtable, _t2)
    del dtable
    dx = scatter_add(_t5, _t1, (slice(None, None, None), None))
    del _t5
    dx = like(dx, x)
    return dx, dy
