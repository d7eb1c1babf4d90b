"""Corpus: NumPy's elementwise functions (ufuncs and ``np.clip``/``np.where``), each at least
once, on every argument kind, with broadcasting between operands."""

import numpy as np

from . import ALL, ND, F, program

POS = F(lo=0.3, hi=2.0)  # inside the domain of log, sqrt, ...
UNIT = F(lo=-0.9, hi=0.9)  # inside the domain of arcsin, arccos


@program(F(), F(), wrt=(0, 1))
def np_arith_ufuncs(x, y):
    a = np.add(x, y)
    b = np.subtract(x, np.multiply(y, 2.0))
    c = np.divide(a, np.add(np.multiply(y, y), 1.0))
    return np.sum(np.multiply(a, b) + c + np.negative(x))


@program(POS, F(), wrt=(0, 1))
def np_power(x, y):
    return np.sum(np.power(x, y) + np.power(x, 3) + np.power(2.0, y))


@program(F())
def np_exp_expm1(x):
    return np.sum(np.exp(x) + np.expm1(x))


@program(POS)
def np_logs(x):
    return np.sum(np.log(x) + np.log1p(x) + np.log2(x) + np.log10(x))


@program(POS)
def np_sqrt_square(x):
    return np.sum(np.sqrt(x) + np.square(x) * 0.5)


@program(F(lo=0.2, hi=1.5), F(lo=-1.5, hi=-0.2), wrt=(0, 1))
def np_abs(x, y):
    return np.sum(np.abs(x) * np.abs(y) + np.absolute(x - y))


@program(F(lo=-1.2, hi=1.2))
def np_trig(x):
    return np.sum(np.sin(x) + np.cos(x) * np.tan(x))


@program(UNIT)
def np_inverse_trig(x):
    return np.sum(np.arcsin(x) + 2.0 * np.arccos(x) + np.arctan(x * 3.0))


@program(F(), POS, wrt=(0, 1))
def np_arctan2_hypot(y, x):
    return np.sum(np.arctan2(y, x) + np.hypot(x, y))


@program(F())
def np_hyperbolic(x):
    return np.sum(np.sinh(x) + np.cosh(x) * np.tanh(x))


@program(F(lo=-1.0, hi=1.0), F(lo=-1.0, hi=1.0), wrt=(0, 1))
def np_maximum_minimum(x, y):
    # random draws: equal values (the kink) have probability zero
    return np.sum(np.maximum(x, y) * 2.0 + np.minimum(x, y) ** 2 + np.maximum(x, 0.0))


@program(F(lo=-2.0, hi=2.0))
def np_clip(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2 + np.clip(x * 2.0, None, 0.5))


@program(F(), F(), wrt=(0, 1))
def np_where(x, y):
    return np.sum(np.where(x > y, x * y, np.sin(y)))


@program(F(), F(), wrt=(0, 1))
def np_logaddexp(x, y):
    return np.sum(np.logaddexp(x, y) + np.logaddexp(x, 0.0))


@program(F((3, 1)), F((2, 1, 4)), kinds=ND, wrt=(0, 1))
def np_broadcast_ufuncs(x, y):
    return np.sum(np.maximum(x, y) * np.hypot(x, y) + np.arctan2(x, y + 3.0))


@program(F(), kinds=ALL)
def np_nondiff_passthrough(x):
    # zero-derivative functions pass through as constants
    s = np.sign(x)
    f = np.floor(x * 3.0)
    r = np.round(x * 2.0)
    return np.sum(x * s + f * x + r * x * x + np.zeros_like(x) + np.ones_like(x) * x)


@program(F((5,), distinct=True), kinds=ND)
def np_argmax_index(x):
    return x[np.argmax(x)] * 2.0 + x[np.argmin(x)] + np.sum(x * (x >= 0.1))
