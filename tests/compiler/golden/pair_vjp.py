# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import checked_seed, like
from srcgrad.rules.helpers import unbroadcast


def vjp_pair(x, y, seed):
    _t1 = np.shape(x)
    _t2 = np.shape(y)
    # line 35: return x * y, np.sin(x)
    _t3 = checked_seed(seed, (None, None))
    _t4 = _t3[0]
    _t3 = _t3[1]
    _t5 = np.cos(x)
    dx = _t3 * _t5
    _t6 = _t4 * y
    _t6 = unbroadcast(_t6, _t1)
    dx = dx + _t6
    _t4 = _t4 * x
    dy = unbroadcast(_t4, _t2)
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
