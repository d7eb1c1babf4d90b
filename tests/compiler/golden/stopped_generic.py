# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one, zeros_of
from srcgrad.rules.helpers import rebroadcast, unbroadcast


def grad_stopped(x, y, n):
    _t1 = np.shape(x)
    # line 63: scale = sg.stop_gradient(np.max(x))
    scale = np.max(x)
    # line 64: return np.sum(x * scale * n)
    _t2 = x * scale
    _t3 = np.shape(_t2)
    _t2 = _t2 * n
    _t4 = np.shape(_t2)
    _t2 = unbroadcast(rebroadcast(seed_one(np.sum(_t2)) * n, _t4), _t3) * scale
    dx = unbroadcast(_t2, _t1)
    dx = like(dx, x)
    dy = zeros_of(y)
    return dx, dy
