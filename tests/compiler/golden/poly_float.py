# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import math


def grad_poly(x):
    # line 20: y = math.sin(x) * x ** 2
    _t1 = math.sin(x)
    _t2 = x ** 2
    _t1 = _t1 * 2
    dx = _t1 * x
    _t3 = math.cos(x)
    _t2 = _t2 * _t3
    dx += _t2
    dx = float(dx)
    return dx
