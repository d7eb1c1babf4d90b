"""Corpus: calls to user functions (same module, another module, nested ``def``, ``lambda``,
closures), module globals read, default and keyword arguments of callees."""

import math as m

import numpy as np
from numpy import sin as numpy_sin
from numpy import sum as numpy_sum

from . import ALL, ND, PYFLOAT, F, program
from . import helpers_mod as hm
from .helpers_mod import scaled_tanh, softplus

ALPHA = 0.7
WEIGHTS = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _square(v):
    return v * v


def _norm2(u, w=1.0):
    return np.sum(w * u * u)


def _pair(a, b):
    return a * b, a - b


def _outer_helper(v):
    return _inner_helper(v) + 1.0


def _inner_helper(v):
    return np.sin(v) * v


_cube = hm.make_power(3)  # a closure made at import time: its cell holds 3


@program(F())
def call_same_module(x):
    return np.sum(_square(x) + x)


@program(F(), F())
def call_twice(x, y):
    return np.sum(_square(x) * _square(y - x))


@program(F())
def call_default_used(x):
    return _norm2(x) + _norm2(x * 2.0, 0.5)


@program(F(), F())
def call_with_keyword(x, y):
    return _norm2(x, w=2.0) + _norm2(u=y, w=3.0) + _norm2(w=x * x, u=y)


@program(F(), F())
def call_returning_tuple(x, y):
    p, q = _pair(x, y)
    return np.sum(p * q)


@program(F())
def call_chain(x):
    return np.sum(_outer_helper(x) * _outer_helper(2.0 * x))


@program(F())
def call_other_module(x):
    return np.sum(hm.softplus(x) + hm.scaled_tanh(x))


@program(F())
def call_imported_name(x):
    return np.sum(softplus(x) * scaled_tanh(x, scale=2.0))


@program(F(), F())
def call_other_module_defaults(x, w):
    return np.sum(hm.affine(x, w) + hm.affine(w, x, b=2.0) ** 2)


@program(F(), kinds=PYFLOAT)
def call_other_module_math(x):
    return hm.cube_math(x) * 2.0


@program(F(lo=0.5, hi=2.0), F(), wrt=(0, 1))
def call_other_module_tuple(r, theta):
    a, b = hm.polar(r, theta)
    return np.sum(a * a + 3.0 * b)


@program(F())
def nested_def(x):
    def inner(v):
        return v * v + 1.0

    return np.sum(inner(x) * inner(np.cos(x)))


@program(F(), F())
def nested_def_closure(x, y):
    def scaled(v):
        return v * y  # reads y from the enclosing function: gradient flows to y too

    return np.sum(scaled(x) + scaled(scaled(x)))


@program(F(), F(), wrt=1)
def nested_def_closure_wrt_captured(x, y):
    def scaled(v):
        return np.exp(v * y)

    return np.sum(scaled(x))


@program(F())
def lambda_local(x):
    sq = lambda v: v ** 2
    return np.sum(sq(x) + sq(np.sin(x)))


@program(F(), F(), wrt=(0, 1))
def lambda_closure(x, y):
    f = lambda v, k=2.0: k * v * y
    return np.sum(f(x) + f(x, k=3.0))


@program(F())
def closure_from_factory(x):
    return np.sum(_cube(x) - x)


@program(F(), kinds=ALL)
def global_read(x):
    return np.sum(ALPHA * x + hm.SCALE * x * x)


@program(F(), kinds=ND)
def global_array_read(x):
    return np.sum(np.tanh(WEIGHTS @ x))


@program(F(), kinds=ALL)
def imported_under_other_names(x):
    # callees are resolved by identity, whatever the name they are imported under
    return numpy_sum(numpy_sin(x) * x)


@program(F(), kinds=PYFLOAT)
def math_module_alias(x):
    return m.sin(x) * m.exp(x)
