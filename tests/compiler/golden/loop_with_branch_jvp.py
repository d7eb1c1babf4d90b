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
        if i % 2 == 0:
            # line 71: acc = acc * x
            acc_1 = acc * x
            _t2 = dacc * x + dx * acc
            _t3 = x.shape
            dacc_1 = rebroadcast(_t2, _t3)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t4 = np.sin(acc)
            _t5 = dacc * np.cos(acc)
            acc_1 = acc + _t4
            _t6 = dacc + _t5
            _t7 = x.shape
            dacc_1 = rebroadcast(_t6, _t7)
        acc, dacc = acc_1, dacc_1
    # line 74: return np.sum(acc)
    _t8 = np.sum(acc)
    _t9 = np.sum(dacc)
    return _t8, _t9
