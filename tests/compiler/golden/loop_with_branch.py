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
        _t1 = i % 2
        _t2 = _t1 == 0
        if _t2:
            # line 71: acc = acc * x
            acc_1 = acc * x
            _t3 = None
        else:
            # line 73: acc = acc + np.sin(acc)
            _t4 = np.sin(acc)
            _t3 = np.shape(_t4)
            acc_1 = acc + _t4
        tape.append((acc, _t3, _t2))
        acc = acc_1
    # line 69: for i in range(n):
    _t5 = np.shape(acc)
    # line 74: return np.sum(acc)
    dacc = unreduce(1.0, _t5)
    # line 69: for i in range(n):
    dx = zeros_of(x)
    dx_1 = dx
    for i_1 in reversed(range(n)):
        acc_2, _t6, _t7 = tape.pop()
        # line 70: if i % 2 == 0:
        if _t7:
            # line 71: acc = acc * x
            _t8 = dacc * x
            _t9 = np.shape(acc_2)
            dacc_1 = unbroadcast(_t8, _t9)
            _t10 = dacc * acc_2
            _t11 = np.shape(x)
            dx_2 = unbroadcast(_t10, _t11)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t12 = np.shape(acc_2)
            dacc_2 = unbroadcast(dacc, _t12)
            _t13 = unbroadcast(dacc, _t6)
            _t14 = np.cos(acc_2)
            _t15 = _t13 * _t14
            dacc_1 = dacc_2 + _t15
            dx_2 = dx
        # line 69: for i in range(n):
        dx_1 = dx_1 + dx_2
        dacc = dacc_1
    dx_3 = dx_1 + dacc
    dx_3 = like(dx_3, x)
    return dx_3
