# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np


def grad_compile_time_control(x):
    # line 137: for k, scale in enumerate((0.5, 2.0, 1.5)):  (unrolled at compile time: 3 items, enumerate() of values known while compiling)
    # line 138: h = np.tanh(h * scale) + k
    _t1 = np.tanh(x * 0.5)
    _t2 = np.tanh((_t1 + 0.0) * 2.0)
    _t3 = np.tanh((_t2 + 1.0) * 1.5)
    h = _t3 + 2.0
    # line 140: while n < 2:  (unrolled at compile time: 2 trips, its condition known while compiling)
    # line 141: h = h * h
    h_1 = h * h
    dh = (h_1 + h_1) * h
    del h, h_1
    dh = dh + dh
    # line 138: h = np.tanh(h * scale) + k
    dh = dh * (1.0 - _t3 * _t3) * 1.5
    del _t3
    dh = dh * (1.0 - _t2 * _t2) * 2.0
    del _t2
    dx = dh * (1.0 - _t1 * _t1) * 0.5
    # line 143: if NORMALIZE:  (folded at compile time: the condition is False while compiling)
    return dx
