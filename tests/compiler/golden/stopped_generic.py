# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one, zeros_of
from srcgrad.rules.helpers import unbroadcast, unreduce


def grad_stopped(x, y, n):
    # line 63: scale = sg.stop_gradient(np.max(x))
    _t1 = np.max(x)
    scale = _t1
    # line 64: return np.sum(x * scale * n)
    _t2 = x * scale
    _t3 = _t2 * n
    _t4 = np.sum(_t3)
    _t5 = seed_one(_t4)
    _t6 = np.shape(_t3)
    _t7 = unreduce(_t5, _t6)
    _t8 = _t7 * n
    _t9 = np.shape(_t2)
    _t10 = unbroadcast(_t8, _t9)
    _t11 = _t10 * scale
    _t12 = np.shape(x)
    dx = unbroadcast(_t11, _t12)
    dx = like(dx, x)
    dy = zeros_of(y)
    return dx, dy
