# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like


def grad_halve_until_small(x):
    tape = []
    # line 93: while True:
    x_1 = x
    _break1 = False
    while not _break1:
        # line 94: if np.max(np.abs(x)) < 1.0:
        if np.absolute(x_1).max() < 1.0:
            _break1 = True
        else:
            _break1 = False
        # line 93: while True:
        _t1 = not _break1
        if _t1:
            # line 96: x = x * 0.5
            x_2 = x_1 * 0.5
        else:
            x_2 = x_1
        tape.append(_t1)
        x_1 = x_2
    # line 97: return np.sum(np.sin(x))
    dx_1 = np.cos(x_1)
    # line 93: while True:
    _t2 = len(tape)
    for _t3 in range(_t2):
        _t4 = tape.pop()
        if _t4:
            # line 96: x = x * 0.5
            dx_2 = dx_1 * 0.5
        else:
            dx_2 = dx_1
        dx_1 = dx_2
    dx = like(dx_1, x)
    return dx
