"""Control corpus: if/elif/else, variables assigned on one branch only, early returns from
branches, and/or/not, chained comparisons and conditional expressions."""

import math

import numpy as np

from . import M23, X3, X5, program


@program(wrt=(0, 1), high=(0.4, 1.5), middle=(0.4, 0.5), low=(-0.7, -0.5))
def branches_assign_different_names(x, t):
    if t > 1.0:
        a = x * t
        b = math.sin(x)
    elif t > 0.0:
        a = math.exp(x) * t
        c = x * x
        b = c + t
    else:
        a = -x
        b = 2.0 * t
    return a * b + a


@program(positive=(X3,), negative=(-X3,))
def defined_on_one_branch_then_returned_early(x):
    if np.sum(x) > 0.0:
        w = np.sin(x)
    else:
        return np.sum(x * x)
    return np.sum(w * x)


@program(positive=(X3,), negative=(-X3,))
def defined_on_one_branch_used_under_the_same_test(x):
    y = x * 2.0
    positive = np.sum(x) > 0.0
    if positive:
        extra = np.cos(x)
        y = y + extra
    if positive:
        y = y * extra
    return np.sum(y * y)


@program(taken=(1.2,), skipped=(0.2,))
def if_without_else_on_a_float(x):
    y = x
    if x > 0.5:
        y = y * y
    return y + math.log(x + 1.0)


@program(wrt=(0, 1), pp=(0.6, 0.9), pn=(0.6, -0.9), np_=(-0.6, 0.9), nn=(-0.6, -0.9))
def nested_ifs_four_paths(x, y):
    if x > 0.0:
        if y > 0.0:
            r = x * y
        else:
            r = x - y * y
    else:
        if y > 0.0:
            r = math.sin(x) * y
        else:
            r = math.exp(x + y)
    return r * r + x


@program(inside=(0.5,), below=(-0.5,), above=(2.0,))
def chained_comparisons_in_elif(x):
    if 0.0 < x < 1.0:
        return x ** 3
    elif -1.0 <= x <= 0.0:
        return math.sin(x) * 2.0
    else:
        return math.sqrt(x)


@program(wrt=(0, 1), first=(0.5, -0.5), second=(0.5, 0.5), second_by_or=(-0.5, 1.5),
         third=(-0.5, 0.5), last=(-0.5, -0.5))
def and_or_not_in_conditions(x, y):
    if x > 0.0 and not y > 0.0:
        r = x * y
    elif x > 0.0 or y > 1.0:
        r = x + y * y
    elif not (x > -1.0 and y < 0.0):
        r = math.cos(x * y)
    else:
        r = x
    return r


@program(positive=(0.7,), negative=(-0.7,))
def conditional_expression_on_floats(x):
    y = x * x if x > 0.0 else math.sin(x)
    return y * 3.0 + (y if x < 0.0 else -y)


@program(wrt=(0, 1), a=(0.5, 2.0), b=(0.5, 0.3), c=(-0.5, 0.3))
def nested_conditional_expression(x, t):
    z = x * t if t > 1.0 else (x + t if x > 0.0 else x * x * t)
    return z * x


@program(big=(X3 + 0.5,), small=(X3 * 0.2,))
def conditional_expression_on_arrays(x):
    scale = 2.0 if np.max(x) > 0.5 else 0.5
    y = x * scale if np.sum(x) > 0.5 else np.sin(x)
    return np.sum(y * x)


@program(first=(X3 + 1.0,), second=(X3 * 0.1,), third=(-X3 - 1.0,))
def early_returns_from_every_branch(x):
    s = np.sum(x)
    if s > 2.0:
        return np.sum(np.exp(x)) / s
    elif s > -0.5:
        return np.sum(x * x * x)
    else:
        return np.sum(np.tanh(x)) * s


@program(wrt=(0, 1), pp=(X3, 1.5), pn=(X3, -1.5), n_=(-X3 - 1.0, 0.5))
def return_from_a_nested_if(x, t):
    y = x * t
    if np.sum(x) > 0.0:
        if t > 0.0:
            return np.sum(y * y)
        y = y + 1.0
    return np.sum(np.sin(y))


@program(mode0=(X3, 0), mode1=(X3, 1), mode2=(X3, 2))
def branch_on_an_int_argument(x, mode):
    if mode == 0:
        y = x * x
    elif mode == 1:
        y = np.exp(x)
    else:
        y = np.sin(x) * x
    return np.sum(y)


@program(greater=(np.array([0.9, 0.2, -0.4]),), smaller=(np.array([0.1, 0.6, 0.3]),))
def branch_on_array_elements(x):
    if x[0] > x[1]:
        y = x * x[0]
    else:
        y = x * x[1] + x[2]
    return np.sum(y * y)


@program(flag_false=(X3,), flag_true=(-X3,))
def not_of_a_stored_comparison(x):
    flag = np.sum(x) > 0.0
    y = np.cos(x)
    if not flag:
        y = y * x
    return np.sum(y)


@program(tiny=(0.05,), small=(0.5,), medium=(1.5,), large=(3.0,))
def piecewise_elif_chain(x):
    if abs(x) < 0.1:
        y = x
    elif abs(x) < 1.0:
        y = x * x + 2.0 * x
    elif x < 2.0:
        y = math.log(x) * 5.0
    else:
        y = math.sqrt(x) * x
    return y * math.cos(y)


@program(wrt=(0, 1), ordered=(0.5, 0.8), reversed_=(0.9, 0.2))
def conditional_expression_of_tuples(x, y):
    a, b = (x, y) if x < y else (y, x)
    return a * 3.0 + b * b


@program(wrt=(0, 1), between=(0.5, 0.8), outside=(0.5, 1.5))
def chained_comparison_of_expressions(x, y):
    if x < y <= 2.0 * x:
        return x * y * y
    return x + y


@program(positive=(X5,), negative=(-X5 - 0.5,))
def branch_assigns_an_array_and_a_float(x):
    if np.mean(x) > 0.0:
        v = x * 2.0
        k = np.sum(x)
    else:
        v = np.exp(x)
        k = 1.0
    return np.sum(v) * k


@program(wrt=0, top=(M23 + 1.0,), bottom=(M23 - 1.0,))
def branch_on_a_matrix_picks_rows(a):
    if np.sum(a) > 0.0:
        r = a[0] * a[1]
    else:
        r = a[:, 0] * 3.0
    return np.sum(r * r)
