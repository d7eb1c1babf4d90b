# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import reduced_count, unbroadcast
from srcgrad.rules.products import matmul_adjoint_y


def grad_mlp_loss(w, b, x):
    # line 25: h = np.tanh(x @ w + b)
    _t1 = x @ w
    _t2 = _t1 + b
    h = np.tanh(_t2)
    # line 26: return np.mean(h ** 2)
    _t3 = np.shape(_t2)
    _t4 = reduced_count(_t3)
    _t5 = 1.0 / _t4
    _t6 = 2 * h
    dh = _t5 * _t6
    # line 25: h = np.tanh(x @ w + b)
    _t7 = h * h
    _t8 = 1 - _t7
    _t9 = dh * _t8
    _t10 = np.shape(_t1)
    _t11 = unbroadcast(_t9, _t10)
    _t12 = np.shape(b)
    db = unbroadcast(_t9, _t12)
    _t13 = np.shape(w)
    dw = matmul_adjoint_y(x, _t11, _t13)
    db = like(db, b)
    return dw, db
