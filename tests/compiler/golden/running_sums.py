# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one, zeros_of
from srcgrad.rules.helpers import scatter_add, unbroadcast, unreduce
from srcgrad.rules.setitem import setitem


def grad_running_sums(x):
    # line 101: y = np.zeros_like(x)
    y = np.zeros_like(x)
    # line 103: for i in range(len(x)):
    _t1 = len(x)
    tape = []
    total = 0.0
    for i in range(_t1):
        _t2 = np.shape(y)
        # line 104: total = total + x[i] * x[i]
        _t3 = x[i]
        _t4 = _t3 * _t3
        total = total + _t4
        _t5 = np.shape(total)
        # line 105: y[i] = total
        y[i] = total
        tape.append((_t2, _t5, _t3))
    # line 103: for i in range(len(x)):
    _t6 = np.shape(y)
    # line 106: return np.sum(y)
    _t7 = np.sum(y)
    _t7 = seed_one(_t7)
    dy = unreduce(_t7, _t6)
    # line 103: for i in range(len(x)):
    dtotal = zeros_of(total)
    dx = zeros_of(x)
    for i_1 in reversed(range(_t1)):
        _t8, _t9, _t10 = tape.pop()
        # line 105: y[i] = total
        _t11 = setitem(dy, 0.0, i_1)
        dy_1 = unbroadcast(_t11, _t8)
        _t12 = dy[i_1]
        _t13 = unbroadcast(_t12, _t9)
        dtotal = dtotal + _t13
        # line 104: total = total + x[i] * x[i]
        _t14 = unbroadcast(dtotal, ())
        _t15 = _t14 * _t10
        _t16 = np.shape(x)
        dx_1 = scatter_add(_t15, _t16, i_1)
        dx_2 = dx_1 + dx_1
        # line 103: for i in range(len(x)):
        dx = dx + dx_2
        dy = dy_1
    dx = like(dx, x)
    return dx
