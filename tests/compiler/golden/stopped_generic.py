# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one, zeros_of
from srcgrad.rules.helpers import unbroadcast, unreduce


def grad_stopped(x, y, n):
    _t1 = np.shape(x)
    # line 63: scale = sg.stop_gradient(np.max(x))
    _t2 = np.max(x)
    scale = _t2
    # line 64: return np.sum(x * scale * n)
    _t3 = x * scale
    _t4 = np.shape(_t3)
    _t3 = _t3 * n
    _t5 = np.shape(_t3)
    _t3 = np.sum(_t3)
    _t3 = seed_one(_t3)
    _t3 = unreduce(_t3, _t5)
    _t3 = _t3 * n
    _t3 = unbroadcast(_t3, _t4)
    _t3 = _t3 * scale
    dx = unbroadcast(_t3, _t1)
    dx = like(dx, x)
    dy = zeros_of(y)
    return dx, dy
