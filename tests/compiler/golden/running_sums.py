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
        total = total + _t3 * _t3
        _t4 = np.shape(total)
        # line 105: y[i] = total
        y[i] = total
        tape.append((_t2, _t4, _t3))
    # line 103: for i in range(len(x)):
    _t5 = np.shape(y)
    # line 106: return np.sum(y)
    dy = unreduce(seed_one(np.sum(y)), _t5)
    # line 103: for i in range(len(x)):
    dtotal = zeros_of(total)
    dx = zeros_of(x)
    for i_1 in reversed(range(_t1)):
        _t6, _t7, _t8 = tape.pop()
        # line 105: y[i] = total
        _t9 = setitem(dy, 0.0, i_1)
        dy_1 = unbroadcast(_t9, _t6)
        dtotal = dtotal + unbroadcast(dy[i_1], _t7)
        # line 104: total = total + x[i] * x[i]
        _t10 = unbroadcast(dtotal, ()) * _t8
        _t11 = np.shape(x)
        dx_1 = scatter_add(_t10, _t11, i_1)
        dx_2 = dx_1 + dx_1
        # line 103: for i in range(len(x)):
        dx = dx + dx_2
        dy = dy_1
    dx = like(dx, x)
    return dx
