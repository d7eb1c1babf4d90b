# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, zeros_of
from srcgrad.rules.helpers import scatter_add, unbroadcast, unreduce
from srcgrad.rules.setitem import setitem


def grad_running_sums(x):
    _t1 = x.shape
    # line 101: y = np.zeros_like(x)
    y = np.zeros_like(x)
    _t2 = y.shape
    # line 103: for i in range(len(x)):
    _t3 = len(x)
    tape = []
    total = 0.0
    for i in range(_t3):
        # line 104: total = total + x[i] * x[i]
        _t4 = x[i]
        total = total + _t4 * _t4
        # line 105: y[i] = total
        y[i] = total
        tape.append(_t4)
    # line 106: return np.sum(y)
    dy = unreduce(1.0, _t2)
    # line 103: for i in range(len(x)):
    dtotal = zeros_of(total)
    dx = np.zeros(x.shape)
    for i_1 in reversed(range(_t3)):
        _t5 = tape.pop()
        # line 105: y[i] = total
        dy_1 = setitem(dy, 0.0, i_1)
        dtotal = dtotal + unbroadcast(dy[i_1], ())
        # line 104: total = total + x[i] * x[i]
        dx_1 = scatter_add(dtotal * _t5, _t1, i_1)
        dx_2 = dx_1 + dx_1
        # line 103: for i in range(len(x)):
        dx = dx + dx_2
        dy = dy_1
    dx = like(dx, x)
    return dx
