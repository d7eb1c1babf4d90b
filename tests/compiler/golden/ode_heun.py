# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import unbroadcast


def grad_ode_heun(p, s0, n):
    tape = []
    # line 192: for _ in range(n):
    s = s0
    for i in range(n):
        _t1 = np.shape(s)
        # line 193: k1 = _ode_rhs(s, p)
        _t2 = s[1]
        _t3 = -p[0]
        _t4 = s[0]
        _t5 = np.sin(_t4)
        _t6 = p[1]
        k1 = np.array([_t2, _t3 * _t5 - _t6 * _t2])
        _t7 = k1.shape
        # line 194: k2 = _ode_rhs(s + 0.1 * k1, p)
        _t8 = s + 0.1 * k1
        _t9 = _t8[1]
        _t10 = _t8[0]
        _t11 = np.sin(_t10)
        k2 = np.array([_t9, _t3 * _t11 - _t6 * _t9])
        # line 195: s = s + 0.05 * (k1 + k2)
        s = s + 0.05 * (k1 + k2)
        tape.append((_t1, _t7, _t9, _t6, _t11, _t3, _t10, _t2, _t5, _t4))
    # line 196: return np.sum(s * s)
    ds = s + s
    # line 192: for _ in range(n):
    dp = np.zeros(p.shape)
    for i_1 in reversed(range(n)):
        _t12, _t13, _t14, _t15, _t16, _t17, _t18, _t19, _t20, _t21 = tape.pop()
        # line 195: s = s + 0.05 * (k1 + k2)
        ds_1 = unbroadcast(ds, _t12)
        _t22 = unbroadcast(ds, _t13) * 0.05
        # line 194: k2 = _ode_rhs(s + 0.1 * k1, p)
        _t23 = _t22[0,]
        _t24 = _t22[1,]
        _t25 = -_t24
        _t26 = _t25 * _t14
        _t27 = _t25 * _t15
        _t28 = _t24 * _t16
        _t29 = _t24 * _t17 * np.cos(_t18)
        _t30 = np.zeros(_t13)
        _t30[1] = _t27 + _t23
        _t30[0] = _t29
        ds_2 = ds_1 + unbroadcast(_t30, _t12)
        dk1 = _t22 + _t30 * 0.1
        # line 193: k1 = _ode_rhs(s, p)
        _t31 = dk1[0,]
        _t32 = dk1[1,]
        _t33 = -_t32
        _t34 = _t33 * _t19
        _t35 = _t33 * _t15
        _t36 = _t32 * _t20
        _t37 = _t32 * _t17 * np.cos(_t21)
        _t38 = np.zeros(_t12)
        _t38[1] = _t35 + _t31
        _t38[0] = _t37
        ds = ds_2 + _t38
        # line 192: for _ in range(n):
        dp[1] = dp[1] + _t26 + _t34
        dp[0] = dp[0] - _t28 - _t36
    dp = like(dp, p)
    ds0 = like(ds, s0)
    return dp, ds0
