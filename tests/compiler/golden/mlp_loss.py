# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import reduced_count, unbroadcast
from srcgrad.rules.products import matmul_adjoint_y


def grad_mlp_loss(w, b, x):
    _t1 = np.shape(w)
    _t2 = np.shape(b)
    # line 25: h = np.tanh(x @ w + b)
    _t3 = x @ w
    _t4 = np.shape(_t3)
    _t3 = _t3 + b
    _t5 = np.shape(_t3)
    h = np.tanh(_t3)
    # line 26: return np.mean(h ** 2)
    _t6 = reduced_count(_t5)
    _t6 = 1.0 / _t6
    _t7 = 2 * h
    dh = _t6 * _t7
    # line 25: h = np.tanh(x @ w + b)
    _t8 = h * h
    _t8 = 1 - _t8
    _t8 = dh * _t8
    _t9 = unbroadcast(_t8, _t4)
    db = unbroadcast(_t8, _t2)
    dw = matmul_adjoint_y(x, _t9, _t1)
    db = like(db, b)
    return dw, db
