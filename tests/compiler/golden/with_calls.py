# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np


def value_and_grad_with_calls(x):
    # line 47: return np.sum(square(shift(_scale(x))))
    _t1 = x * 2.0
    _t1 += 1.0
    _t2 = _t1 * _t1
    _t2 = np.sum(_t2)
    _t1 = _t1 + _t1
    dx = _t1 * 2.0
    return _t2, dx
