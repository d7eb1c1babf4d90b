# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import as_python, update_if_fits
from srcgrad.rules.helpers import reduced_count, unbroadcast


def grad_mlp_loss(w, b, x):
    _t1 = b.shape
    # line 25: h = np.tanh(x @ w + b)
    _t2 = x @ w
    _t3 = _t2.shape
    _t2 = update_if_fits(np.add, _t2, b)
    _t4 = _t2.shape
    h = np.tanh(_t2)
    del _t2
    # line 26: return np.mean(h ** 2)
    _t5 = reduced_count(_t4)
    try:
        _t5 = 1.0 / _t5
    except (ArithmeticError, ValueError):
        _t5 = as_python(np.divide(1.0, _t5), 1.0, _t5)
    dh = _t5 * 2.0 * h
    # line 25: h = np.tanh(x @ w + b)
    dh *= 1.0 - h * h
    del h
    _t6 = unbroadcast(dh, _t3)
    db = unbroadcast(dh, _t1)
    del dh
    dw = x.T @ _t6
    return dw, db
