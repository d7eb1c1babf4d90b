# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import as_python, like, seed_one, stack_list, unstack, zeros_of
from srcgrad.rules.helpers import scatter_add


def grad_rnn_states(x, w):
    _t1 = x.shape
    # line 110: h = 0.0 * x[0]
    h = 0.0 * x[0]
    # line 112: for t in range(len(x)):
    _t2 = len(x)
    tape = []
    states = []
    for i in range(_t2):
        # line 113: h = np.tanh(w * h + x[t])
        h_1 = np.tanh(w * h + x[i])
        tape.append((h_1, h))
        states.append(h_1)
        h = h_1
    # line 115: return np.sum(np.stack(states) ** 2)
    _t3 = stack_list(states)
    _t4 = seed_one(np.sum(_t3 ** 2))
    try:
        _t3 = _t3 ** 1
    except (ArithmeticError, ValueError):
        _t3 = as_python(np.power(_t3, 1), _t3, 1)
    dstates = unstack(_t4 * (2 * _t3))
    # line 112: for t in range(len(x)):
    dh = zeros_of(h)
    dx = np.zeros(x.shape)
    dw = 0.0
    for i_1 in reversed(range(_t2)):
        h_2, h_3 = tape.pop()
        _t5 = dstates.pop()
        dh_1 = dh + _t5
        # line 113: h = np.tanh(w * h + x[t])
        _t6 = dh_1 * (1.0 - h_2 * h_2)
        dx_1 = scatter_add(_t6, _t1, i_1)
        dw_1 = _t6 * h_3
        dh = _t6 * w
        # line 112: for t in range(len(x)):
        dx = dx + dx_1
        dw = dw + dw_1
    # line 110: h = 0.0 * x[0]
    dx = dx + scatter_add(dh * 0.0, _t1, 0)
    dx = like(dx, x)
    dw = like(dw, w)
    return dx, dw
