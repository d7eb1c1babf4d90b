# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import unreduce


def grad_loop_with_branch(x, n):
    _t1 = x.shape
    tape = []
    # line 69: for i in range(n):
    acc = x
    for i in range(n):
        # line 70: if i % 2 == 0:
        _t2 = i % 2 == 0
        if _t2:
            # line 71: acc = acc * x
            acc_1 = acc * x
        else:
            # line 73: acc = acc + np.sin(acc)
            acc_1 = acc + np.sin(acc)
        tape.append((acc, _t2))
        acc = acc_1
    # line 74: return np.sum(acc)
    dacc = unreduce(1.0, _t1)
    # line 69: for i in range(n):
    dx = np.zeros(x.shape)
    dx_1 = dx
    for i_1 in reversed(range(n)):
        acc_2, _t3 = tape.pop()
        # line 70: if i % 2 == 0:
        if _t3:
            # line 71: acc = acc * x
            dacc_1 = dacc * x
            dx_2 = dacc * acc_2
        else:
            # line 73: acc = acc + np.sin(acc)
            dacc_1 = dacc + dacc * np.cos(acc_2)
            dx_2 = dx
        # line 69: for i in range(n):
        dx_1 = dx_1 + dx_2
        dacc = dacc_1
    del dx
    dx_3 = dx_1 + dacc
    dx_3 = like(dx_3, x)
    return dx_3
