# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import as_python, like
from srcgrad.rules.helpers import reduced_count, reduced_shape, unreduce


def grad_methods(x):
    _t1 = x.shape
    # line 51: m = x.reshape(2, 3)
    m = np.reshape(x, (2, 3))
    # line 52: return (m.T @ m).sum(axis=0).mean()
    _t2 = m.T
    _t3 = _t2 @ m
    _t4 = _t3.shape
    _t5 = reduced_shape(_t4, 0)
    _t6 = reduced_count(_t5)
    try:
        _t6 = 1.0 / _t6
    except (ArithmeticError, ValueError):
        _t6 = as_python(np.divide(1.0, _t6), 1.0, _t6)
    _t5 = unreduce(unreduce(_t6, _t5), _t4, 0)
    dm = _t2.T @ _t5 + (_t5 @ _t2).T
    # line 51: m = x.reshape(2, 3)
    dx = np.reshape(dm, _t1)
    dx = like(dx, x)
    return dx
