# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from golden_programs import _scale


def value_and_grad_with_calls(x):
    k = _scale.__defaults__[0]
    # line 47: return np.sum(square(shift(_scale(x))))
    _t1 = x * k + 1.0
    _t2 = (_t1 * _t1).sum()
    dx = (_t1 + _t1) * k
    return _t2, dx
