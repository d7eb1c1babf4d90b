"""Control corpus: subscript writes into arrays the function created (``y[i] = v``,
``y[i] += v``, ``y[i, j] = v``, ``y[a:b] = v``, inside and outside loops; an overwritten
value gets no gradient), lists built with ``.append`` then stacked, and recursion on an int
argument."""

import math

import numpy as np

from . import M23, M34, W33, X3, X5, program


@program(run=(X3,))
def index_writes_outside_a_loop(x):
    y = np.zeros_like(x)
    y[0] = x[1] * 2.0
    y[2] = np.sin(x[0])
    return np.sum(y * x)


@program(run=(X3,))
def overwritten_element_gets_no_gradient(x):
    y = x.copy()
    y[1] = 3.0
    y[0] = x[2] * x[2]
    return np.sum(y * y)


@program(run=(X3,))
def element_written_twice(x):
    y = x * 2.0
    y[0] = x[1] * x[1]
    y[0] = x[2] + 1.0
    return np.sum(y * np.cos(y))


@program(zero=(X5, 0), some=(X5, 3))
def index_writes_in_a_loop(x, n):
    y = np.zeros_like(x)
    for i in range(n):
        y[i] = x[i] * x[i] * (i + 1)
    return np.sum(y * x)


@program(zero=(X5, 0), many=(X5, 4))
def augmented_index_writes_in_a_loop(x, n):
    y = x * 1.0
    for i in range(n):
        y[i] += x[i + 1] * y[i]
    return np.sum(y * y)


@program(run=(X5,))
def prefix_sum_reads_earlier_writes(x):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = y[i - 1] * 0.5 + x[i] * x[i]
    return np.sum(y * y)


@program(run=(M23,))
def two_index_writes_in_nested_loops(a):
    y = np.zeros((2, 3))
    for i in range(2):
        for j in range(3):
            y[i, j] = a[i, j] * a[1 - i, 2 - j]
    return np.sum(y * a)


@program(run=(M23,))
def two_index_write_outside_a_loop(a):
    y = a * 1.0
    y[1, 2] = a[0, 0] * 4.0
    y[0, 1] += a[1, 1]
    return np.sum(y * y)


@program(run=(X5,))
def slice_write(x):
    y = x * 1.0
    y[1:3] = x[0:2] * 2.0
    return np.sum(y * y * x)


@program(run=(X5,))
def augmented_slice_write(x):
    y = x.copy()
    y[1:] += x[:-1] * 3.0
    y[:2] -= np.sin(x[3:])
    return np.sum(y * y)


@program(run=(X5,))
def slice_writes_in_a_loop(x):
    y = np.zeros(6)
    for i in range(0, 4, 2):
        y[i:i + 2] = x[i:i + 2] * x[i + 1]
    return np.sum(y * y)


@program(run=(M34,))
def row_writes_from_an_enumerate_loop(a):
    y = np.zeros_like(a)
    for i, row in enumerate(a):
        y[i] = row * (i + 1.0) + np.tanh(row)
    return np.sum(y * a)


@program(run=(X5,))
def write_under_a_branch_in_a_loop(x):
    y = np.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0.0:
            y[i] = x[i] * x[i]
        else:
            y[i] = -x[i] * 3.0
    return np.sum(y * y)


@program(transform="vjp", run=(X3, 4))
def builds_an_array_output(x, n):
    out = np.zeros((n, 3))
    h = x
    for i in range(n):
        h = np.sin(h) * x + 0.1
        out[i] = h
    return out


@program(one=(X3, 1), many=(X3, 4))
def list_of_arrays_then_stack(x, n):
    h = x * 1.0
    items = []
    for i in range(n):
        h = np.cos(h) * x
        items.append(h)
    return np.sum(np.stack(items) ** 2) + np.sum(h)


@program(run=(0.7,))
def list_of_floats_then_np_array(x):
    values = []
    y = x
    for i in range(5):
        y = y * 0.9 + math.sin(y)
        values.append(y)
    return float(np.sum(np.array(values) * np.arange(5.0)))


@program(wrt=(0, 1), run=(W33, M34[:, :3]))
def recurrent_hidden_states_stacked(w, xs):
    h = np.zeros(3)
    hs = []
    for row in xs:
        h = np.tanh(w @ h + row)
        hs.append(h)
    states = np.stack(hs)
    return np.sum(states * states)


@program(zero=(1.3, 0), one=(1.3, 1), many=(1.3, 5))
def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


@program(run=(0.4, 4), base=(0.4, 0))
def recursion_on_two_branches(x, depth):
    if depth <= 0:
        return math.sin(x)
    return recursion_on_two_branches(x * 1.1, depth - 1) + recursion_on_two_branches(
        x * 0.9, depth - 2)


@program(run=(X3, 3))
def recursion_with_a_loop_inside(x, n):
    if n == 0:
        return np.sum(x)
    y = x
    for i in range(n):
        y = y * 0.8 + np.sin(y)
    return recursion_with_a_loop_inside(y, n - 1) * 0.5


@program(even=(0.6, 4), odd=(0.6, 3))
def mutual_recursion_on_an_int(x, n):
    return _even_part(x, n)


def _even_part(x, n):
    if n == 0:
        return x
    return _odd_part(x * x, n - 1) + x


def _odd_part(x, n):
    if n == 0:
        return math.cos(x)
    return _even_part(x * 0.5, n - 1)
