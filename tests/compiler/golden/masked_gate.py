# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.rules.masks import dropped_array, kept_array
from srcgrad.rules.ties import larger_picks_array, taken_array


def grad_masked_gate(x, y):
    # line 206: r = np.sqrt(y * y + 0.25)
    _t1 = y * y + 0.25
    r = np.sqrt(_t1)
    del _t1
    # line 207: k = np.maximum(np.tanh(x) - r, 0.0) + 0.1
    _t2 = np.tanh(x)
    _t3 = _t2 - r
    k = np.maximum(_t3, 0.0) + 0.1
    # line 208: m = (x * y) / k
    m = x * y / k
    # line 209: t = np.tanh(m) ** 2
    _t4 = np.tanh(m)
    t = _t4 ** 2
    # line 210: v = np.where(y > 0.0, t * r, t / r)
    _t5 = y > 0.0
    _t6 = t * r
    _t7 = t / r
    v = np.where(_t5, _t6, _t7)
    del _t6
    _t8 = kept_array(x, _t5)
    dt = dropped_array(x, _t5) / r
    del _t5
    dr = dt * _t7
    del _t7
    dt += _t8 * r
    dr = _t8 * t - dr
    del _t8
    # line 209: t = np.tanh(m) ** 2
    dm = dt * (2.0 * _t4) * (1.0 - t)
    del _t4, t, dt
    # line 208: m = (x * y) / k
    dm /= k
    del k
    dk = -dm * m
    del m
    _t9 = dm * y
    dx = v + _t9
    del v, _t9
    dy = dm * x
    del dm
    # line 207: k = np.maximum(np.tanh(x) - r, 0.0) + 0.1
    _t3 = taken_array(dk, larger_picks_array(_t3, 0.0))
    del dk
    dr -= _t3
    dx += _t3 * (1.0 - _t2 * _t2)
    del _t2, _t3
    # line 206: r = np.sqrt(y * y + 0.25)
    dy += dr / r * y
    return dx, dy
