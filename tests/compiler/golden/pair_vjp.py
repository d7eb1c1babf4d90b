# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import checked_seed, like, seed_of_shape
from srcgrad.rules.helpers import unbroadcast


def vjp_pair(x, y, seed):
    _t1 = x.shape
    # line 35: return x * y, np.sin(x)
    _t2 = checked_seed(seed, (None, None))
    _t3 = seed_of_shape(_t2[0], _t1)
    dx = seed_of_shape(_t2[1], _t1) * np.cos(x)
    dx = dx + unbroadcast(_t3 * y, _t1)
    dy = unbroadcast(_t3 * x, _t1)
    dx = like(dx, x)
    dy = like(dy, y)
    return dx, dy
