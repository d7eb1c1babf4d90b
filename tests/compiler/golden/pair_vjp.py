# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import unbroadcast


def vjp_pair(x, y, seed):
    # line 35: return x * y, np.sin(x)
    _t1 = seed[0]
    _t2 = seed[1]
    _t3 = np.cos(x)
    dx = _t2 * _t3
    _t4 = _t1 * y
    _t5 = np.shape(x)
    _t6 = unbroadcast(_t4, _t5)
    dx = dx + _t6
    _t7 = _t1 * x
    _t8 = np.shape(y)
    dy = unbroadcast(_t7, _t8)
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
