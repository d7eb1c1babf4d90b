# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one
from srcgrad.rules.helpers import unreduce


def value_and_grad_with_calls(x):
    # line 47: return np.sum(square(shift(_scale(x))))
    _t1 = x * 2.0
    _t2 = _t1 + 1.0
    _t3 = _t2 * _t2
    _t4 = np.sum(_t3)
    _t5 = seed_one(_t4)
    _t6 = np.shape(_t3)
    _t7 = unreduce(_t5, _t6)
    _t8 = _t7 * _t2
    _t9 = _t8 + _t8
    dx = _t9 * 2.0
    dx = like(dx, x)
    return _t4, dx
