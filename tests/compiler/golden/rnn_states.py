# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import as_python, like, seed_one, stack_list, unstack, zeros_of
from srcgrad.rules.helpers import scatter_add, unreduce


def grad_rnn_states(x, w):
    _t1 = np.shape(x)
    # line 110: h = 0.0 * x[0]
    _t2 = x[0]
    h = 0.0 * _t2
    # line 112: for t in range(len(x)):
    _t3 = len(x)
    tape = []
    states = []
    for i in range(_t3):
        # line 113: h = np.tanh(w * h + x[t])
        _t4 = w * h
        _t5 = x[i]
        _t6 = _t4 + _t5
        h_1 = np.tanh(_t6)
        tape.append((h_1, h))
        states.append(h_1)
        h = h_1
    # line 115: return np.sum(np.stack(states) ** 2)
    _t7 = stack_list(states)
    _t8 = _t7 ** 2
    _t9 = np.shape(_t8)
    _t8 = np.sum(_t8)
    _t8 = seed_one(_t8)
    _t8 = unreduce(_t8, _t9)
    try:
        _t7 = _t7 ** 1
    except (ArithmeticError, ValueError):
        _t7 = as_python(np.power(_t7, 1), _t7, 1)
    _t7 = 2 * _t7
    _t8 = _t8 * _t7
    dstates = unstack(_t8)
    # line 112: for t in range(len(x)):
    dh = zeros_of(h)
    dx = zeros_of(x)
    dw = zeros_of(w)
    for i_1 in reversed(range(_t3)):
        h_2, h_3 = tape.pop()
        _t10 = dstates.pop()
        dh_1 = dh + _t10
        # line 113: h = np.tanh(w * h + x[t])
        _t11 = h_2 * h_2
        _t12 = 1 - _t11
        _t13 = dh_1 * _t12
        dx_1 = scatter_add(_t13, _t1, i_1)
        dw_1 = _t13 * h_3
        dh = _t13 * w
        # line 112: for t in range(len(x)):
        dx = dx + dx_1
        dw = dw + dw_1
    # line 110: h = 0.0 * x[0]
    _t14 = dh * 0.0
    _t14 = scatter_add(_t14, _t1, 0)
    dx = dx + _t14
    dx = like(dx, x)
    dw = float(dw)
    return dx, dw
