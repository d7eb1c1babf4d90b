# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import golden_programs as _golden_programs
import numpy as np
from srcgrad.compiler.support import like, zeros_of
from srcgrad.rules.helpers import unreduce
from srcgrad.rules.products import dot_adjoint_y


def grad_data_fit(w):
    _t1 = np.shape(w)
    DECAY = _golden_programs.DECAY
    DATA = _golden_programs.DATA
    TARGETS = _golden_programs.TARGETS
    # line 125: loss = DECAY * np.sum(w * w)
    _t2 = w * w
    _t2 = np.sum(_t2)
    loss = DECAY * _t2
    # line 126: for row, t in zip(DATA, TARGETS):
    _t3 = len(DATA)
    _t4 = len(TARGETS)
    _t3 = np.minimum(_t3, _t4)
    tape = []
    for i in range(_t3):
        row = DATA[i]
        t = TARGETS[i]
        # line 127: loss = loss + (np.tanh(np.dot(row, w)) - t) ** 2
        _t5 = np.dot(row, w)
        _t6 = np.tanh(_t5)
        _t7 = _t6 - t
        _t8 = _t7 ** 2
        loss = loss + _t8
        tape.append((_t7, _t6, row))
    # line 126: for row, t in zip(DATA, TARGETS):
    dw = zeros_of(w)
    dloss = 1.0
    for i_1 in reversed(range(_t3)):
        _t9, _t10, row_1 = tape.pop()
        # line 127: loss = loss + (np.tanh(np.dot(row, w)) - t) ** 2
        _t11 = 2 * _t9
        _t12 = dloss * _t11
        _t13 = _t10 * _t10
        _t14 = 1 - _t13
        _t15 = _t12 * _t14
        dw_1 = dot_adjoint_y(row_1, _t15, _t1)
        # line 126: for row, t in zip(DATA, TARGETS):
        dw = dw + dw_1
    # line 125: loss = DECAY * np.sum(w * w)
    _t16 = dloss * DECAY
    _t16 = unreduce(_t16, _t1)
    _t16 = _t16 * w
    dw = dw + _t16
    dw = dw + _t16
    dw = like(dw, w)
    return dw
