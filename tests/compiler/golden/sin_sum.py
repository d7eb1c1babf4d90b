# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np


def grad_sin_sum(x):
    # line 16: return np.sin(x * 3).sum()
    _t1 = x * 3
    _t1 = np.cos(_t1)
    dx = _t1 * 3
    return dx
