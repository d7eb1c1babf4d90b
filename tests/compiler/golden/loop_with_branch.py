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
    _t7 = zeros_of(x)
    for i_1 in reversed(range(n)):
        acc_2, _t8, _t9 = tape.pop()
        # line 70: if i % 2 == 0:
        if _t9:
            # line 71: acc = acc * x
            _t10 = dacc * x
            _t11 = np.shape(acc_2)
            dacc_1 = unbroadcast(_t10, _t11)
            _t12 = dacc * acc_2
            _t13 = np.shape(x)
            dx = unbroadcast(_t12, _t13)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t14 = np.shape(acc_2)
            dacc_2 = unbroadcast(dacc, _t14)
            _t15 = np.shape(_t8)
            _t16 = unbroadcast(dacc, _t15)
            _t17 = np.cos(acc_2)
            _t18 = _t16 * _t17
            dacc_1 = dacc_2 + _t18
            # line 70: if i % 2 == 0:
            dx = zeros_of(x)
        # line 69: for i in range(n):
        _t7 = _t7 + dx
        dacc = dacc_1
    dx_1 = _t7 + dacc
    dx_1 = like(dx_1, x)
    return dx_1
