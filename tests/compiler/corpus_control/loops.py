"""Control corpus: for loops over range (any start/stop/step, negative steps, zero trips),
over the first axis of arrays, with enumerate/zip, nested three deep, and loops containing
branches, conditional expressions and calls to user functions."""

import math

import numpy as np

from . import M23, M34, T234, W33, X3, X5, program


@program(zero=(X3, 0), one=(X3, 1), many=(X3, 4))
def range_stop(x, n):
    s = x
    for i in range(n):
        s = np.sin(s) * x + i
    return np.sum(s * s)


@program(zero=(X3, 3, 3), backwards_bounds=(X3, 4, 1), two=(X3, 1, 3))
def range_start_stop(x, a, b):
    s = np.sum(x)
    for i in range(a, b):
        s = s * x[i % 3] + 0.5
    return s


@program(three_trips=(X5,))
def range_positive_step(x):
    s = 0.0
    for i in range(1, 7, 2):
        s = s + x[i - 1] * x[i - 1] * i
    return s


@program(zero=(0.6, 0), one=(0.6, 1), many=(0.6, 5))
def range_negative_step(x, n):
    y = x
    for k in range(n, 0, -1):
        y = y * x + math.sin(y) / k
    return y


@program(run=(X5,))
def range_negative_step_by_two(x):
    s = 1.0
    for i in range(4, -1, -2):
        s = s * x[i] + x[i]
    return s


@program(run=(X3,))
def range_statically_empty(x):
    s = np.sum(x * x)
    for i in range(0, 3, -1):
        s = s * 100.0
    for i in range(5, 2):
        s = s + x[0] * 100.0
    return s


@program(run=(X5,))
def horner_backwards_over_an_array(x):
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = acc * 0.5 + x[i] * x[i]
    return acc


@program(run=(0.3,))
def float_recurrence_with_math(x):
    y = x
    for i in range(20):
        y = y * x + math.sin(y)
    return y


@program(run=(M34,))
def loop_over_matrix_rows(a):
    total = 0.0
    for row in a:
        total = total + np.sum(row * row) * np.max(row)
    return total


@program(run=(X5,))
def loop_over_vector_elements(x):
    s = 0.0
    p = 1.0
    for v in x:
        s = s + v * v
        p = p * (1.0 + v)
    return s * p


@program(wrt=(0, 1), run=(W33, M34[:, :3]))
def recurrent_over_rows(w, xs):
    h = np.zeros(3)
    for row in xs:
        h = np.tanh(w @ h + row)
    return np.sum(h * h)


@program(run=(X5,))
def enumerate_loop(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + v * v * (i + 1)
    return s


@program(run=(X5,))
def enumerate_with_a_start(x):
    s = 0.0
    for i, v in enumerate(x, 2):
        s = s + np.sin(v) * i
    return s


@program(wrt=(0, 1), run=(X5, X5[::-1] * 2.0))
def zip_loop(a, b):
    t = 0.0
    for u, v in zip(a, b):
        t = t + u * v + u * u
    return t


@program(wrt=(0, 1), run=(M23, M34[:2, :3]))
def enumerate_zip_of_rows(a, b):
    t = 0.0
    for k, (u, v) in enumerate(zip(a, b)):
        t = t + np.sum(u * v) * (k + 1.0)
    return t


@program(short=(M34, 2), zero=(M34, 0))
def zip_of_range_and_rows(a, n):
    s = 1.0
    for i, row in zip(range(n), a):
        s = s + np.sum(row) * i + np.sum(row * row)
    return s


@program(zero=(X3, 0), one=(X3, 1), three=(X3, 3))
def three_nested_range_loops(x, n):
    acc = x
    for i in range(n):
        for j in range(2):
            for k in range(i + 1):
                acc = np.sin(acc) * x + (j - k) * 0.1
    return np.sum(acc)


@program(run=(T234,))
def three_nested_loops_over_array_axes(t):
    s = 0.0
    for mat in t:
        for row in mat:
            for v in row:
                s = s + v * v * s + v
    return s


@program(zero=(X3, 0), many=(X3, 5))
def loop_with_a_branch_on_the_index(x, n):
    acc = x
    for i in range(n):
        if i % 2 == 0:
            acc = acc * x
        else:
            acc = acc + np.sin(acc)
    return np.sum(acc)


@program(mixed=(X5,))
def loop_with_a_branch_on_the_data(x):
    s = 0.0
    for v in x:
        if v > 0.0:
            s = s + v * v
        elif v > -0.5:
            s = s - math.sin(v)
        else:
            s = s * v
    return s


def _smooth_step(u, w):
    return u * w + np.tanh(u)


def _clipped(u):
    if u > 0.5:
        return 0.5 + 0.1 * u
    return u * u


@program(wrt=(0, 1), run=(X3, 0.7))
def loop_calls_a_user_function(x, w):
    h = x
    for i in range(3):
        h = _smooth_step(h, w)
    return np.sum(h)


@program(run=(X5,))
def loop_calls_a_function_with_a_branch(x):
    s = 0.0
    for v in x:
        s = s + _clipped(v + 0.3)
    return s


@program(zero=(0.8, 0), many=(0.8, 4))
def loop_with_a_conditional_expression(x, n):
    y = x
    for i in range(n):
        y = y * x if i % 2 == 0 else y + math.cos(x)
    return y


@program(run=(X5,))
def loop_with_a_chained_comparison_on_the_index(x):
    s = 0.0
    n = len(x)
    for i in range(n):
        if 1 <= i < n - 1:
            s = s + x[i] * (x[i - 1] + x[i + 1])
        else:
            s = s + x[i]
    return s


@program(wrt=(0, 1), zero=(0.4, 0.9, 0), many=(0.4, 0.9, 6))
def loop_swaps_carried_values(a, b, n):
    for i in range(n):
        a, b = b, a + b * 0.5
    return a * b


@program(run=(X3,))
def loop_augmented_assignments(x):
    s = x * 1.0
    t = 1.0
    for i in range(3):
        s += x * i
        s *= 0.9
        t *= np.sum(s)
    return t


@program(run=(M34,))
def loop_variable_used_after_the_loop(a):
    for row in a:
        pass
    return np.sum(row * row)


@program(run=(X5,))
def range_over_the_shape(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[(i + 1) % x.shape[0]]
    return s


@program(run=(M34,))
def loops_nested_rows_then_range(a):
    s = 0.0
    for row in a:
        for j in range(1, len(row), 2):
            s = s + row[j] * row[j - 1]
    return s
