# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, zeros_of
from srcgrad.rules.helpers import unbroadcast


def grad_ode_heun(p, s0, n):
    _t1 = p.shape
    tape = []
    # line 192: for _ in range(n):
    s = s0
    for i in range(n):
        _t2 = np.shape(s)
        # line 193: k1 = _ode_rhs(s, p)
        _t3 = s[1]
        _t4 = -p[0]
        _t5 = s[0]
        _t6 = np.sin(_t5)
        _t7 = p[1]
        k1 = np.array([_t3, _t4 * _t6 - _t7 * _t3])
        _t8 = k1.shape
        # line 194: k2 = _ode_rhs(s + 0.1 * k1, p)
        _t9 = s + 0.1 * k1
        _t10 = _t9[1]
        _t11 = _t9[0]
        _t12 = np.sin(_t11)
        k2 = np.array([_t10, _t4 * _t12 - _t7 * _t10])
        # line 195: s = s + 0.05 * (k1 + k2)
        s = s + 0.05 * (k1 + k2)
        tape.append((_t2, _t8, _t10, _t7, _t12, _t4, _t11, _t3, _t6, _t5))
    # line 196: return np.sum(s * s)
    ds = s + s
    # line 192: for _ in range(n):
    dp = zeros_of(p)
    for i_1 in reversed(range(n)):
        _t13, _t14, _t15, _t16, _t17, _t18, _t19, _t20, _t21, _t22 = tape.pop()
        # line 195: s = s + 0.05 * (k1 + k2)
        ds_1 = unbroadcast(ds, _t13)
        _t23 = unbroadcast(ds, _t14) * 0.05
        # line 194: k2 = _ode_rhs(s + 0.1 * k1, p)
        _t24 = _t23[0,]
        _t25 = _t23[1,]
        _t26 = -_t25
        _t27 = _t26 * _t15
        _t28 = _t26 * _t16
        _t29 = _t25 * _t17
        _t30 = _t25 * _t18 * np.cos(_t19)
        _t31 = -_t29
        _t32 = np.zeros(_t14)
        _t32[1] = _t28 + _t24
        _t32[0] = _t30
        ds_2 = ds_1 + unbroadcast(_t32, _t13)
        dk1 = _t23 + _t32 * 0.1
        # line 193: k1 = _ode_rhs(s, p)
        _t33 = dk1[0,]
        _t34 = dk1[1,]
        _t35 = -_t34
        _t36 = _t35 * _t20
        _t37 = _t35 * _t16
        _t38 = _t34 * _t21
        _t39 = _t34 * _t18 * np.cos(_t22)
        _t40 = np.zeros(_t13)
        _t40[1] = _t37 + _t33
        _t40[0] = _t39
        ds = ds_2 + _t40
        # line 192: for _ in range(n):
        _t41 = np.zeros(_t1)
        _t41[1] = _t27 + _t36
        _t41[0] = _t31 - _t38
        dp = dp + _t41
    dp = like(dp, p)
    ds0 = like(ds, s0)
    return dp, ds0
