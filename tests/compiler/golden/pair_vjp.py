# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import checked_seed, like, seed_of_shape
from srcgrad.rules.helpers import unbroadcast


def vjp_pair(x, y, seed):
    _t1 = np.shape(x)
    _t2 = np.shape(y)
    # line 35: return x * y, np.sin(x)
    _t3 = x * y
    _t4 = np.shape(_t3)
    _t5 = checked_seed(seed, (None, None))
    _t6 = seed_of_shape(_t5[0], _t4)
    dx = seed_of_shape(_t5[1], _t1) * np.cos(x)
    dx = dx + unbroadcast(_t6 * y, _t1)
    dy = unbroadcast(_t6 * x, _t2)
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
