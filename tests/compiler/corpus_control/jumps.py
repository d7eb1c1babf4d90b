"""Control corpus: while loops with data-dependent trip counts (0, 1 and many), break,
continue, and return from inside loops and branches."""

import math

import numpy as np

from . import X3, X5, program


@program(zero=(12.0,), one=(7.0,), many=(0.5,))
def while_on_a_float(x):
    while x < 10.0:
        x = x * 1.7 + math.sin(x)
    return x * x


@program(zero=(X3 * 3.0,), one=(X3 * 1.2,), many=(X3 * 0.2,))
def while_on_an_array_norm(x):
    y = x
    while np.sum(y * y) < 2.0:
        y = y * 1.5 + 0.1 * np.sin(y)
    return np.sum(y)


@program(zero=(X3, 0), one=(X3, 1), many=(X3, 5))
def while_with_a_counter(x, n):
    i = 0
    s = x
    while i < n:
        s = s * x + np.cos(s)
        i += 1
    return np.sum(s)


@program(run=(5.0,), other=(2.0,))
def newton_fixed_point(a):
    x = 1.0
    for step in range(50):
        f = x - math.cos(a * x)
        fp = 1.0 + a * math.sin(a * x)
        delta = f / fp
        x = x - delta
        if abs(delta) < 1e-10:
            break
    return x


@program(wrt=(0, 1), zero=(X3, 0.5), many=(X3, 4.0), capped=(X3, 50.0))
def while_condition_with_and(x, limit):
    i = 0
    s = np.sum(x * x)
    while i < 6 and s < limit:
        s = s * 1.3 + limit * 0.1
        i += 1
    return s


@program(zero=(3.0,), one=(1.5,), many=(0.1,))
def while_not_done(x):
    done = x > 2.0
    y = x
    while not done:
        y = y * 1.5 + 0.2
        done = y > 2.0
    return y * x


@program(one=(3.0,), many=(0.3,))
def while_true_with_break(x):
    y = x
    while True:
        y = y * y + 0.5
        if y > 2.0:
            break
    return y


@program(zero=(X5, 0), many=(X5, 4))
def while_with_continue(x, n):
    i = 0
    s = 0.0
    while i < n:
        i += 1
        if x[i] < 0.0:
            continue
        s = s + x[i] * x[i - 1]
    return s


@program(early=(X5, 5), never=(X5 * 0.1, 5), zero=(X5, 0))
def for_break_on_the_data(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * x[i]
        if s > 0.6:
            break
        s = s * 1.1
    return s


@program(run=(X5,))
def for_continue_on_the_data(x):
    s = 1.0
    for v in x:
        if v < 0.0:
            continue
        s = s * (1.0 + v)
    return s


@program(run=(X5, 5))
def continue_and_break_in_one_loop(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 1:
            continue
        if i > 3:
            break
        s = s + np.exp(x[i]) * x[i]
    return s


@program(inner_breaks=(X3 + 0.5, 3), none_break=(X3 * 0.1, 3))
def break_from_the_inner_of_two_loops(x, n):
    acc = 0.0
    for i in range(n):
        for j in range(3):
            acc = acc + x[j] * (i + 1)
            if acc > 2.0:
                break
        acc = acc * 0.5
    return acc


@program(returns=(X3 + 1.0, 5), falls_through=(X3 * 0.1, 2), zero=(X3, 0))
def return_inside_a_for(x, n):
    for i in range(n):
        if np.sum(x) > 3.0:
            return np.sum(x * x)
        x = x * 2.0
    return np.sum(np.sin(x))


@program(at_once=(X3 * 6.0,), later=(X3 + 0.5,))
def return_inside_a_while(x):
    while True:
        if np.sum(x) > 3.0:
            return np.sum(np.sqrt(x * x + 1.0))
        x = x * 1.4
    return 0.0


@program(deep=(X3, 3), never=(X3 * 0.01, 2))
def return_three_loops_deep(x, n):
    s = 0.0
    for i in range(n):
        for j in range(2):
            for k in range(2):
                s = s + x[k] * x[j] + 0.1 * i
                if s > 1.0:
                    return s * np.sum(x)
    return s


@program(wrt=(0, 1), run=(X5, 0.4))
def break_and_return_inside_a_called_function(x, w):
    total = 0.0
    for v in x:
        total = total + _first_crossing(v, w)
    return total


def _first_crossing(v, w):
    y = v
    for i in range(6):
        y = y * 1.5 + w
        if y > 1.0:
            return y * w
    return y


@program(zero=(0.5, 0), many=(0.5, 6))
def early_return_at_the_top(x, n):
    if n == 0:
        return x * 2.0
    y = x
    for i in range(n):
        y = math.sin(y) + x
    return y
