# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like


def grad_halve_until_small(x):
    tape = []
    # line 93: while True:
    x_1 = x
    _break1 = False
    while np.logical_and(True, np.logical_not(_break1)):
        _t1 = np.logical_not(_break1)
        if _t1:
            # line 94: if np.max(np.abs(x)) < 1.0:
            _t3 = np.absolute(x_1).max() < 1.0
            if _t3:
                _break1_2 = True
            else:
                _break1_2 = _break1
            # line 93: while True:
            _t2 = np.logical_not(_break1_2)
            if _t2:
                # line 96: x = x * 0.5
                x_3 = x_1 * 0.5
            else:
                x_3 = x_1
            x_2, _break1_1 = x_3, _break1_2
        else:
            x_2, _break1_1, _t2 = x_1, _break1, None
        tape.append((_t2, _t1))
        x_1, _break1 = x_2, _break1_1
    # line 97: return np.sum(np.sin(x))
    dx_1 = np.cos(x_1)
    # line 93: while True:
    _t4 = len(tape)
    for _t5 in range(_t4):
        _t6, _t7 = tape.pop()
        if _t7:
            if _t6:
                # line 96: x = x * 0.5
                dx_3 = dx_1 * 0.5
            else:
                dx_3 = dx_1
            dx_2 = dx_3
        else:
            dx_2 = dx_1
        dx_1 = dx_2
    dx = like(dx_1, x)
    return dx
