# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one
from srcgrad.rules.helpers import unreduce


def grad_sin_sum(x):
    # line 16: return np.sin(x * 3).sum()
    _t1 = x * 3
    _t2 = np.sin(_t1)
    _t3 = np.sum(_t2)
    _t4 = seed_one(_t3)
    _t5 = np.shape(_t2)
    _t6 = unreduce(_t4, _t5)
    _t7 = np.cos(_t1)
    _t8 = _t6 * _t7
    dx = _t8 * 3
    dx = like(dx, x)
    return dx
