"""Corpus: the transform side of the API. Functions returning tuples (through ``sg.vjp``
with a tuple seed), ``wrt`` by index, name and tuple, unused arguments, ``sg.stop_gradient``,
``sg.defvjp`` rules the compiler must honour, and ``sg.grad`` of a function that calls a
derived function.

Programs whose derivative is not the mathematical one (stop_gradient, straight-through and
deliberately different custom rules) carry an ``expected`` gradient instead of being
checked against finite differences. Registrations happen in ``setup`` hooks, so importing
the corpus does not depend on the API being complete.
"""

import numpy as np

import srcgrad as sg

from . import ALL, ND, SCALAR, F, program
from . import helpers_mod as hm

# --- functions returning tuples / arrays: sg.vjp ----------------------------------------


@program(F(lo=0.5, hi=2.0), F(), transform="vjp", wrt=(0, 1))
def vjp_tuple_result(r, theta):
    return r * np.cos(theta), r * np.sin(theta)


@program(F(), transform="vjp")
def vjp_array_result(x):
    return np.sin(x) * x


@program(F((2, 3)), transform="vjp", kinds=ND)
def vjp_tuple_array_and_scalar(A):
    return A * 2.0 + A * A, np.sum(A ** 3)


@program(F(lo=0.5, hi=2.0), F(), transform="vjp", wrt=1)
def vjp_tuple_from_other_module(r, theta):
    a, b = hm.polar(r, theta * 2.0)
    return a + b, a * b


@program(F((3,)), F((2, 3)), transform="vjp", kinds=ND, wrt=(0, 1))
def vjp_matrix_result(v, A):
    return A * v + np.outer(A[0], v)[:2]


# --- wrt forms --------------------------------------------------------------------------


@program(F(), F(), wrt="y")
def wrt_by_name(x, y):
    return np.sum(x * np.exp(y))


@program(F(), F(), F(), wrt=("x", "z"))
def wrt_names_tuple(x, y, z):
    return np.sum(x * y * z + z * z)


@program(F(), F(), F(), wrt=(2, "x"))
def wrt_mixed_tuple(x, y, z):
    return np.sum(np.sin(x) * y + z ** 3)


@program(F(), F(), wrt=(1,))
def wrt_one_tuple(x, y):
    return np.sum(x * y * y)


@program(F(), F((2, 3)), wrt=(0, 1))
def unused_argument(x, y):
    # y does not reach the result: its gradient is zeros of its shape
    return np.sum(x ** 2)


@program(F(), F(), wrt=1)
def unused_argument_only(x, y):
    return np.sum(np.cos(x))


@program(F(), F(), wrt=(0, 1))
def constant_result(x, y):
    return 3.0


# --- sg.stop_gradient --------------------------------------------------------------------


@program(F(), F(), wrt=(0, 1),
         expected=lambda x, y: (np.cos(x) * x * y, np.zeros_like(y) + np.sin(x) * x))
def stop_gradient(x, y):
    return np.sum(np.sin(x) * sg.stop_gradient(x) * y)


@program(F(), expected=lambda x: 2.0 * x)
def stop_gradient_of_expression(x):
    c = sg.stop_gradient(x * x + 1.0)
    return np.sum(x * x + c)


# --- sg.defvjp honoured by the compiler ----------------------------------------------------


def ste_round(v):
    return np.round(v)


def _register_ste_round():
    sg.defvjp(ste_round, lambda g, out, v: g)  # straight-through estimator


@program(F(), setup=_register_ste_round,
         expected=lambda x: np.round(x * 3.0) + 3.0 * x)
def defvjp_straight_through(x):
    return np.sum(ste_round(x * 3.0) * x)


def doubled_with_wrong_rule(v):
    return v * 2.0


def _register_wrong_rule():
    # the rule says 3, the source says 2: a registered rule wins over the source
    sg.defvjp(doubled_with_wrong_rule, lambda g, out, v: g * 3.0)


@program(F(), setup=_register_wrong_rule, expected=lambda x: np.ones_like(x) * 3.0)
def defvjp_wins_over_source(x):
    return np.sum(doubled_with_wrong_rule(x))


def scaled_by(v, k):
    return v * k


def _register_partial_rule():
    sg.defvjp(scaled_by, lambda g, out, v, k: g * k, None)  # no derivative for k


@program(F(), F(), wrt=(0, 1), setup=_register_partial_rule,
         expected=lambda x, y: (y + np.zeros_like(x), np.zeros_like(y)))
def defvjp_none_for_argument(x, y):
    return np.sum(scaled_by(x, y))


_namespace = {"np": np}
exec("def cube_no_source(v):\n    return v ** 3\n", _namespace)
cube_no_source = _namespace["cube_no_source"]  # made by exec: no Python source to read


def _register_cube():
    sg.defvjp(cube_no_source, lambda g, out, v: g * 3.0 * v * v)


@program(F(), setup=_register_cube, kinds=ALL)
def defvjp_for_function_without_source(x):
    return np.sum(cube_no_source(x) * x)


# --- sg.grad of a function that calls a derived function ---------------------------------


def _cubic(v):
    return np.sum(v ** 3)


d_cubic = None  # set by the setup hook to sg.grad(_cubic): 3 v**2


def _derive_cubic():
    global d_cubic
    if d_cubic is None:
        d_cubic = sg.grad(_cubic)


@program(F(), setup=_derive_cubic, kinds=ALL)
def grad_of_derived_call(x):
    return np.sum(d_cubic(x) * x)


@program(F(), setup=_derive_cubic, kinds=SCALAR)
def grad_of_derived_call_chain(x):
    y = np.sin(x)
    return np.sum(d_cubic(y) + y)
