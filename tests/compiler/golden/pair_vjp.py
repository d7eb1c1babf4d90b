# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import unbroadcast


def vjp_pair(x, y, seed):
    _t1 = np.shape(x)
    _t2 = np.shape(y)
    # line 35: return x * y, np.sin(x)
    _t3 = seed[0]
    _t4 = seed[1]
    _t5 = np.cos(x)
    dx = _t4 * _t5
    _t6 = _t3 * y
    _t6 = unbroadcast(_t6, _t1)
    dx = dx + _t6
    _t3 = _t3 * x
    dy = unbroadcast(_t3, _t2)
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
