# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one, zeros_of
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
            _t3 = np.sin(acc)
            acc_1 = acc + _t3
        tape.append((acc, _t3, _t2))
        acc = acc_1
    # line 74: return np.sum(acc)
    _t4 = np.sum(acc)
    _t5 = seed_one(_t4)
    _t6 = np.shape(acc)
    dacc = unreduce(_t5, _t6)
    # line 69: for i in range(n):
    dx = zeros_of(x)
    for i_1 in reversed(range(n)):
        acc_2, _t7, _t8 = tape.pop()
        # line 70: if i % 2 == 0:
        if _t8:
            # line 71: acc = acc * x
            _t9 = dacc * x
            _t10 = np.shape(acc_2)
            dacc_1 = unbroadcast(_t9, _t10)
            _t11 = dacc * acc_2
            _t12 = np.shape(x)
            dx_1 = unbroadcast(_t11, _t12)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t13 = np.shape(acc_2)
            dacc_2 = unbroadcast(dacc, _t13)
            _t14 = np.shape(_t7)
            _t15 = unbroadcast(dacc, _t14)
            _t16 = np.cos(acc_2)
            _t17 = _t15 * _t16
            dacc_1 = dacc_2 + _t17
            # line 70: if i % 2 == 0:
            dx_1 = zeros_of(x)
        # line 69: for i in range(n):
        dx = dx + dx_1
        dacc = dacc_1
    dx = dx + dacc
    dx = like(dx, x)
    return dx
