# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import as_python, like
from srcgrad.rules.helpers import reduced_count, reduced_shape, unreduce


def grad_methods(x):
    _t1 = x.shape
    # line 51: m = x.reshape(2, 3)
    m = x.reshape((2, 3))
    # line 52: return (m.T @ m).sum(axis=0).mean()
    _t2 = m.T @ m
    _t3 = _t2.shape
    del _t2
    _t4 = reduced_shape(_t3, 0)
    _t5 = reduced_count(_t4)
    try:
        _t5 = 1.0 / _t5
    except (ArithmeticError, ValueError):
        _t5 = as_python(np.divide(1.0, _t5), 1.0, _t5)
    _t4 = unreduce(unreduce(_t5, _t4), _t3, 0)
    dm = m @ _t4 + m @ _t4.T
    del _t4
    # line 51: m = x.reshape(2, 3)
    dx = dm.reshape(_t1)
    del dm
    dx = like(dx, x)
    return dx
