# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import tangent_of_shape
from srcgrad.rules.helpers import rebroadcast


def jvp_loop_with_branch(x, n, tangent):
    _t1 = np.shape(x)
    dx = tangent_of_shape(tangent, _t1)
    # line 69: for i in range(n):
    acc = x
    dacc = dx
    for i in range(n):
        # line 70: if i % 2 == 0:
        _t2 = i % 2
        _t3 = _t2 == 0
        if _t3:
            # line 71: acc = acc * x
            acc_1 = acc * x
            _t4 = dacc * x
            _t5 = dx * acc
            _t6 = _t4 + _t5
            _t7 = np.shape(acc_1)
            dacc_1 = rebroadcast(_t6, _t7)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t8 = np.sin(acc)
            _t9 = np.cos(acc)
            _t10 = dacc * _t9
            acc_1 = acc + _t8
            _t11 = dacc + _t10
            _t12 = np.shape(acc_1)
            dacc_1 = rebroadcast(_t11, _t12)
        acc, dacc = acc_1, dacc_1
    # line 74: return np.sum(acc)
    _t13 = np.sum(acc)
    _t14 = np.sum(dacc)
    return _t13, _t14
