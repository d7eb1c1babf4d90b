# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, zeros_of
from srcgrad.rules.helpers import unbroadcast, unreduce


def grad_loop_with_branch(x, n):
    tape = []
    # line 69: for i in range(n):
    acc = x
    for i in range(n):
        # line 70: if i % 2 == 0:
        _t1 = i % 2 == 0
        if _t1:
            # line 71: acc = acc * x
            acc_1 = acc * x
            _t2 = None
        else:
            # line 73: acc = acc + np.sin(acc)
            _t3 = np.sin(acc)
            _t2 = np.shape(_t3)
            acc_1 = acc + _t3
        tape.append((acc, _t2, _t1))
        acc = acc_1
    # line 69: for i in range(n):
    _t4 = np.shape(acc)
    # line 74: return np.sum(acc)
    dacc = unreduce(1.0, _t4)
    # line 69: for i in range(n):
    dx = zeros_of(x)
    dx_1 = dx
    for i_1 in reversed(range(n)):
        acc_2, _t5, _t6 = tape.pop()
        # line 70: if i % 2 == 0:
        if _t6:
            # line 71: acc = acc * x
            _t7 = dacc * x
            _t8 = np.shape(acc_2)
            dacc_1 = unbroadcast(_t7, _t8)
            _t9 = dacc * acc_2
            _t10 = np.shape(x)
            dx_2 = unbroadcast(_t9, _t10)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t11 = np.shape(acc_2)
            dacc_2 = unbroadcast(dacc, _t11)
            dacc_1 = dacc_2 + unbroadcast(dacc, _t5) * np.cos(acc_2)
            dx_2 = dx
        # line 69: for i in range(n):
        dx_1 = dx_1 + dx_2
        dacc = dacc_1
    dx_3 = dx_1 + dacc
    dx_3 = like(dx_3, x)
    return dx_3
