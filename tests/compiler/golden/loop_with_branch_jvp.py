# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import tangent_of_shape
from srcgrad.rules.helpers import rebroadcast


def jvp_loop_with_branch(x, n, tangent):
    _t1 = x.shape
    dx = tangent_of_shape(tangent, _t1)
    # line 69: for i in range(n):
    acc = x
    dacc = dx
    for i in range(n):
        # line 70: if i % 2 == 0:
        _t2 = i % 2 == 0
        if _t2:
            # line 71: acc = acc * x
            acc_1 = acc * x
            _t3 = dacc * x + dx * acc
            _t4 = x.shape
            dacc_1 = rebroadcast(_t3, _t4)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t5 = np.sin(acc)
            _t6 = dacc * np.cos(acc)
            acc_1 = acc + _t5
            _t7 = dacc + _t6
            _t8 = x.shape
            dacc_1 = rebroadcast(_t7, _t8)
        acc, dacc = acc_1, dacc_1
    # line 74: return np.sum(acc)
    _t9 = np.sum(acc)
    _t10 = np.sum(dacc)
    return _t9, _t10
