# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import checked_seed, like, seed_of_shape
from srcgrad.rules.helpers import unbroadcast
from srcgrad.rules.shape_math import broadcast_shape


def vjp_pair(x, y, seed):
    _t1 = x.shape
    _t2 = y.shape
    # line 35: return x * y, np.sin(x)
    _t3 = broadcast_shape(_t1, _t2)
    _t4 = checked_seed(seed, (None, None))
    _t3 = seed_of_shape(_t4[0], _t3)
    dx = seed_of_shape(_t4[1], _t1) * np.cos(x)
    dx = dx + unbroadcast(_t3 * y, _t1)
    dy = unbroadcast(_t3 * x, _t2)
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
