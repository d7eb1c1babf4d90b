# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.rules.helpers import rebroadcast


def jvp_loop_with_branch(x, n, tangent):
    # line 69: for i in range(n):
    acc = x
    dacc = tangent
    for i in range(n):
        # line 70: if i % 2 == 0:
        _t1 = i % 2
        _t2 = _t1 == 0
        if _t2:
            # line 71: acc = acc * x
            acc_1 = acc * x
            _t3 = dacc * x
            _t4 = tangent * acc
            _t5 = _t3 + _t4
            _t6 = np.shape(acc_1)
            dacc_1 = rebroadcast(_t5, _t6)
        else:
            # line 73: acc = acc + np.sin(acc)
            _t7 = np.sin(acc)
            _t8 = np.cos(acc)
            _t9 = dacc * _t8
            acc_1 = acc + _t7
            _t10 = dacc + _t9
            _t11 = np.shape(acc_1)
            dacc_1 = rebroadcast(_t10, _t11)
        acc, dacc = acc_1, dacc_1
    # line 74: return np.sum(acc)
    _t12 = np.sum(acc)
    _t13 = np.sum(dacc)
    return _t12, _t13
