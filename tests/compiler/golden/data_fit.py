# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import golden_programs as _golden_programs
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.products import dot_adjoint_y


def grad_data_fit(w):
    _t1 = w.shape
    DECAY = _golden_programs.DECAY
    DATA = _golden_programs.DATA
    TARGETS = _golden_programs.TARGETS
    # line 125: loss = DECAY * np.sum(w * w)
    loss = DECAY * (w * w).sum()
    # line 126: for row, t in zip(DATA, TARGETS):
    _t2 = np.minimum(len(DATA), len(TARGETS))
    tape = []
    for i in range(_t2):
        row = DATA[i]
        t = TARGETS[i]
        # line 127: loss = loss + (np.tanh(np.dot(row, w)) - t) ** 2
        _t3 = np.tanh(np.dot(row, w))
        _t4 = _t3 - t
        loss = loss + _t4 ** 2
        tape.append((_t4, _t3, row))
    # line 126: for row, t in zip(DATA, TARGETS):
    dw = np.zeros(w.shape)
    for i_1 in reversed(range(_t2)):
        _t5, _t6, row_1 = tape.pop()
        # line 127: loss = loss + (np.tanh(np.dot(row, w)) - t) ** 2
        dw_1 = dot_adjoint_y(row_1, 2.0 * _t5 * (1.0 - _t6 * _t6), _t1)
        # line 126: for row, t in zip(DATA, TARGETS):
        dw = dw + dw_1
    # line 125: loss = DECAY * np.sum(w * w)
    _t7 = DECAY * w
    dw = dw + _t7 + _t7
    dw = like(dw, w)
    return dw
