# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one
from srcgrad.rules.helpers import reduced_count, unbroadcast, unreduce
from srcgrad.rules.products import matmul_adjoint_y


def grad_mlp_loss(w, b, x):
    # line 25: h = np.tanh(x @ w + b)
    _t1 = x @ w
    _t2 = _t1 + b
    h = np.tanh(_t2)
    # line 26: return np.mean(h ** 2)
    _t3 = h ** 2
    _t4 = np.mean(_t3)
    _t5 = seed_one(_t4)
    _t6 = np.shape(_t3)
    _t7 = unreduce(_t5, _t6)
    _t8 = reduced_count(_t6)
    _t9 = _t7 / _t8
    _t10 = 2 * h
    dh = _t9 * _t10
    # line 25: h = np.tanh(x @ w + b)
    _t11 = h * h
    _t12 = 1 - _t11
    _t13 = dh * _t12
    _t14 = np.shape(_t1)
    _t15 = unbroadcast(_t13, _t14)
    _t16 = np.shape(b)
    db = unbroadcast(_t13, _t16)
    _t17 = np.shape(w)
    dw = matmul_adjoint_y(x, _t15, _t17)
    dw = like(dw, w)
    db = like(db, b)
    return dw, db
