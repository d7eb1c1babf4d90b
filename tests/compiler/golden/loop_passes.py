# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import unbroadcast


def grad_loop_passes(x, k, n):
    tape = []
    # line 176: y = y + 0.1 * (-k * np.sin(y)) * np.cos(y) - -np.cos(x)
    _t1 = 0.1 * -k
    _t2 = np.cos(x)
    # line 175: for _ in range(n):
    y = x
    for i in range(n):
        # line 176: y = y + 0.1 * (-k * np.sin(y)) * np.cos(y) - -np.cos(x)
        _t3 = np.sin(y)
        _t4 = _t1 * _t3
        _t5 = np.cos(y)
        y = y + _t4 * _t5 + _t2
        tape.append((_t5, _t4, _t3))
    del _t2
    # line 177: return np.sum(y * y)
    dy = y + y
    # line 175: for _ in range(n):
    dx = np.zeros(x.shape)
    # line 176: y = y + 0.1 * (-k * np.sin(y)) * np.cos(y) - -np.cos(x)
    _t6 = np.sin(x)
    # line 175: for _ in range(n):
    dk = 0.0
    for i_1 in reversed(range(n)):
        _t7, _t8, _t9 = tape.pop()
        # line 176: y = y + 0.1 * (-k * np.sin(y)) * np.cos(y) - -np.cos(x)
        dx_1 = dy * _t6
        _t10 = dy * _t7
        dy_1 = dy - dy * _t8 * _t9
        _t10 *= 0.1
        _t11 = unbroadcast(_t10 * _t9, ())
        dy = dy_1 - _t10 * k * _t7
        # line 175: for _ in range(n):
        dx = dx - dx_1
        dk = dk - _t11
    del _t6
    dx = dx + dy
    dx = like(dx, x)
    dk = like(dk, k)
    return dx, dk
