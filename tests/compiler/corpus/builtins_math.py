"""Corpus: builtins ``abs min max sum float len`` and ``math.*`` on Python floats."""

import math

import numpy as np

from . import ND, PYFLOAT, SCALAR, F, program


@program(F(lo=0.2, hi=1.5), F(lo=-1.5, hi=-0.2), kinds=SCALAR, wrt=(0, 1))
def builtin_abs(x, y):
    return abs(x) * abs(y) + abs(x - y)


@program(F(lo=0.1, hi=0.9), F(lo=1.1, hi=2.0), kinds=SCALAR, wrt=(0, 1))
def builtin_min_max(x, y):
    return min(x, y) * 3.0 + max(x, y) ** 2 + max(x, y, 0.5 * x)


@program(F(), F(), kinds=SCALAR, wrt=(0, 1))
def builtin_sum_list(x, y):
    return sum([x, y * x, 2.0 * y])


@program(F(), kinds=ND)
def builtin_sum_array(x):
    # sum over the first axis of a 1-D array gives a scalar
    return sum(x * x)


@program(F(), kinds=("float", "np.float64", "0d"))
def builtin_float(x):
    return float(x) * float(x * 2.0)


@program(F((4,)), kinds=ND)
def builtin_len(x):
    n = len(x)
    return np.sum(x / n) * n + len(x) * np.sum(x * x)


@program(F(), kinds=PYFLOAT)
def math_trig(x):
    return math.sin(x) * math.cos(x) + math.tan(x / 2.0)


@program(F(lo=0.2, hi=2.0), kinds=PYFLOAT)
def math_exp_log(x):
    return math.exp(x) + math.log(x) + math.log1p(x) + math.expm1(x)


@program(F(lo=0.2, hi=2.0), kinds=PYFLOAT)
def math_sqrt_pow(x):
    return math.sqrt(x) + math.pow(x, 2.5) + math.log2(x) + math.log10(x)


@program(F(), kinds=PYFLOAT)
def math_hyperbolic(x):
    return math.tanh(x) + math.sinh(x) * math.cosh(x)


@program(F(lo=-0.9, hi=0.9), kinds=PYFLOAT)
def math_inverse_trig(x):
    return math.asin(x) + math.acos(x) * 2.0 + math.atan(x)


@program(F(), F(lo=0.2, hi=1.5), kinds=PYFLOAT, wrt=(0, 1))
def math_two_args(y, x):
    return math.atan2(y, x) + math.hypot(x, y)


@program(F(), kinds=PYFLOAT)
def math_constants_fabs(x):
    return math.pi * x + math.e * x * x + math.fabs(x + 5.0)
