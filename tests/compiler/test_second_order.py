"""Second derivatives through the compiler: grad(grad), Hessian-vector products by
forward-over-reverse (sg.jvp of sg.grad) and full sg.hessian, on programs with ``for``
and ``while`` loops and branches (issue 6). The reverse pass of a loop saves values on a
tape; these tests check that the tape differentiates (srcgrad/compiler/ad/tape.py).

Every Hessian is checked against central differences of the compiled gradient, for
symmetry (relative 1e-10), against Hessian-vector products, and against the runtime's
``sg.autograd.functional.hessian`` on the same program run on Tensors.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import numeric_gradient, numeric_hessian, numeric_jacobian

W = np.array([[0.5, -0.2, 0.1, 0.3], [0.1, 0.4, -0.3, 0.2], [-0.2, 0.1, 0.6, -0.1],
              [0.3, 0.2, 0.1, 0.2]])
COEFFS = [0.5, -1.0, 0.25, 2.0, -0.125]


# --- programs of one float ----------------------------------------------------------------

def power_loop(x):
    s = x
    for i in range(3):
        s = s * x
    return s


def while_until(x):
    s = 0.0
    while s < 10.0:
        s = s + np.sin(x) * x + 1.0
    return s * x


def branch_in_loop(x):
    s = 1.0
    for i in range(5):
        if s > 2.0:
            s = s * 0.5 + np.cos(x * i)
        else:
            s = s * x + 0.1
    return s


def nested_loops(x):
    s = 0.0
    for i in range(3):
        t = x
        for j in range(i + 1):
            t = np.sin(t) * x
        s = s + t * t
    return s


def break_early(x):
    s = x
    for i in range(10):
        s = s * x + 0.5
        if s > 20.0:
            break
    return np.log(s)


def continue_odd(x):
    s = 0.0
    for i in range(6):
        if i % 2 == 1:
            continue
        s = s + np.exp(x * 0.1 * i) * x
    return s


def branch_then_loop(x):
    if x > 1.0:
        y = x * x
    else:
        y = np.sin(x)
    for i in range(4):
        y = y * np.tanh(x + 0.1 * i)
    return y


def horner(x):
    s = 0.0
    for c in COEFFS:
        s = s * x + c
    return s


def newton_sqrt(x):
    y = x
    for i in range(6):
        y = 0.5 * (y + x / y)
    return y * y * y


def while_halving(x):
    y = x * x + 3.0
    n = 0
    while y > 1.0:
        y = y * 0.5 + np.sin(y) * 0.1
        n += 1
    return y * x


def two_carried(x):
    a = x
    b = 1.0
    for i in range(4):
        a, b = a * np.cos(b) - b, b * np.sin(a) + x
    return a + b


def step_range(x):
    s = x
    for i in range(1, 9, 3):
        s = s * np.exp(-0.1 * i * x) + x
    return s


SCALAR_PROGRAMS = [
    (power_loop, 1.3), (power_loop, -0.7), (while_until, 1.3), (while_until, 0.4),
    (branch_in_loop, 1.2), (branch_in_loop, 2.3), (nested_loops, 0.8), (break_early, 1.5),
    (break_early, 0.9), (continue_odd, 0.7), (branch_then_loop, 1.6),
    (branch_then_loop, 0.6), (horner, 1.1), (newton_sqrt, 2.0), (while_halving, 1.7),
    (two_carried, 0.3), (step_range, 0.9),
]


def _fd(g, x: float) -> float:
    """d g / dx of a function of one float (g is an exact derivative: one level of differences)."""
    return float(numeric_gradient(g, (x,), {}, 0))


@pytest.mark.parametrize("f, x", SCALAR_PROGRAMS,
                         ids=[f"{f.__name__}-{x}" for f, x in SCALAR_PROGRAMS])
def test_second_derivative_of_one_float(f, x):
    g = sg.grad(f)
    want = _fd(g, x)
    rr = sg.grad(sg.grad(f))(x)  # reverse over reverse
    _, fr = sg.jvp(sg.grad(f))(x, 1.0)  # forward over reverse
    h = sg.hessian(f)(x)
    assert rr == pytest.approx(want, rel=1e-6, abs=1e-6)
    assert fr == pytest.approx(rr, rel=1e-10, abs=1e-12)
    assert float(h) == pytest.approx(rr, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("f, x", SCALAR_PROGRAMS[:8],
                         ids=[f"{f.__name__}-{x}" for f, x in SCALAR_PROGRAMS[:8]])
def test_third_derivative_of_one_float(f, x):
    gg = sg.grad(sg.grad(f))
    assert sg.grad(gg)(x) == pytest.approx(_fd(gg, x), rel=1e-5, abs=1e-5)


# --- programs of a vector -----------------------------------------------------------------

def product_loop(x):
    s = 1.0
    for i in range(len(x)):
        s = s * (x[i] + 2.0)
    return s


def recurrent_cell(x):
    h = np.zeros(4)
    for t in range(3):
        h = np.tanh(W @ h + x * (t + 1))
    return np.sum(h * h)


def signs_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            s = s + x[i] ** 3
        else:
            s = s - np.sin(x[i]) * s
    return s


def grow_while(x):
    y = x
    while np.sum(y * y) < 50.0:
        y = y * 1.5 + np.sin(y)
    return np.sum(y ** 3)


def pairwise(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i):
            s = s + x[i] * x[j] * np.sin(x[i] - x[j])
    return s


def rotate_pairs(x):
    a = x[0]
    b = x[1]
    for i in range(len(x)):
        a, b = a * np.cos(x[i]) - b * np.sin(x[i]), a * np.sin(x[i]) + b * np.cos(x[i])
    return a * b


def collected_states(x):
    h = x
    hs = []
    for t in range(3):
        h = np.tanh(W @ h) + x
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def logsumexp_loop(x):
    m = x[0]
    for i in range(len(x)):
        if x[i] > m:
            m = x[i]
    s = 0.0
    for i in range(len(x)):
        s = s + np.exp(x[i] - m)
    return m + np.log(s)


def cumulative_log(x):
    c = 1.0
    s = 0.0
    for i in range(len(x)):
        c = c * np.exp(x[i] * 0.5)
        s = s + np.log(1.0 + c)
    return s


def matrix_power_loop(x):
    v = x
    for k in range(3):
        v = W @ v * np.cos(v)
    return np.dot(v, x)


def break_on_norm(x):
    y = x
    for k in range(20):
        y = y * 1.3 + 0.1 * np.sum(y)
        if np.sum(y * y) > 30.0:
            break
    return np.sum(np.sin(y))


def reversed_range(x):
    s = 0.0
    for i in range(len(x) - 1, -1, -1):
        s = s * x[i] + x[i] ** 2
    return s


def prefix_writes(x):
    y = np.zeros(4)
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i] * x[i]
        y[i] = np.sin(acc)
    return np.sum(y * x)


def while_with_branch(x):
    y = x * 1.0
    k = 0
    while k < 5:
        if np.sum(y) > 0.0:
            y = y * np.cos(y)
        else:
            y = y + y * y
        k += 1
    return np.sum(y * y)


def collected_run_time_length(x):
    h = x[0]
    hs = []
    for t in range(len(x)):  # len(x) is known only at run time: a real loop and list
        h = np.tanh(h * x[t]) + x[t]
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


X4 = np.array([0.3, -0.5, 0.8, 0.2])
VECTOR_PROGRAMS = [
    product_loop, recurrent_cell, signs_in_loop, grow_while, pairwise, rotate_pairs,
    collected_states, logsumexp_loop, cumulative_log, matrix_power_loop, break_on_norm,
    reversed_range, prefix_writes, while_with_branch, collected_run_time_length,
]


def _fd_hessian(g, x: np.ndarray) -> np.ndarray:
    """Central differences of the gradient function ``g``: ``H[:, k] = d g / d x_k``."""
    return numeric_hessian(g, (x,))


def _close(a, b, rel: float) -> None:
    scale = max(np.max(np.abs(b)), 1.0)
    assert np.max(np.abs(np.asarray(a) - np.asarray(b))) <= rel * scale, (a, b)


@pytest.mark.parametrize("f", VECTOR_PROGRAMS, ids=[f.__name__ for f in VECTOR_PROGRAMS])
def test_hessian_of_a_vector_program(f):
    H = sg.hessian(f)(X4)
    assert H.shape == (4, 4)
    _close(H, _fd_hessian(sg.grad(f), X4), 1e-6)
    _close(H, H.T, 1e-10)  # symmetric
    v = np.array([1.0, -2.0, 0.5, 3.0])
    _, hv = sg.jvp(sg.grad(f))(X4, v)  # a Hessian-vector product, one pass
    _close(hv, H @ v, 1e-10)


# prefix_writes stores into an ndarray (np.zeros), which a Tensor cannot write into with a
# graph: that program is not a Tensor program, so it has no runtime counterpart
RUNTIME_PROGRAMS = [f for f in VECTOR_PROGRAMS if f is not prefix_writes]


@pytest.mark.parametrize("f", RUNTIME_PROGRAMS, ids=[f.__name__ for f in RUNTIME_PROGRAMS])
def test_hessian_agrees_with_the_runtime(f):
    from srcgrad.autograd.functional import hessian as runtime_hessian

    H = sg.hessian(f)(X4)
    H_runtime = runtime_hessian(f, sg.tensor(X4.copy()))
    _close(H, np.asarray(H_runtime.detach().numpy()), 1e-10)


@pytest.mark.parametrize("f, x", SCALAR_PROGRAMS[:6],
                         ids=[f"{f.__name__}-{x}" for f, x in SCALAR_PROGRAMS[:6]])
def test_scalar_hessian_agrees_with_the_runtime(f, x):
    from srcgrad.autograd.functional import hessian as runtime_hessian

    H_runtime = runtime_hessian(f, sg.tensor(np.array(x)))  # float64
    assert sg.hessian(f)(x) == pytest.approx(float(H_runtime.item()), rel=1e-10, abs=1e-12)


grad_grow_while = sg.grad(grow_while)
grad_recurrent_cell = sg.grad(recurrent_cell)


def directional_grow_while(x, v):
    return np.sum(grad_grow_while(x) * v)


def directional_recurrent_cell(x, v):
    return np.dot(grad_recurrent_cell(x), v)


@pytest.mark.parametrize("f, directional", [(grow_while, directional_grow_while),
                                            (recurrent_cell, directional_recurrent_cell)])
def test_reverse_over_reverse_through_a_call_of_a_derived_function(f, directional):
    v = np.array([1.0, -2.0, 0.5, 3.0])
    H = sg.hessian(f)(X4)
    _close(sg.grad(directional)(X4, v), H @ v, 1e-10)  # grad of <grad f, v>: H v
    _close(sg.vjp(sg.grad(f))(X4, v), H.T @ v, 1e-10)


grad_collected = sg.grad(collected_run_time_length)


def directional_collected(x, v):
    return np.sum(grad_collected(x) * v)


def test_reverse_over_reverse_of_a_collected_list_is_a_clear_error():
    # forward over reverse handles it (test_hessian_of_a_vector_program); reverse over
    # reverse would need the adjoint of popping the adjoint list, which does not exist yet
    with pytest.raises(sg.SrcGradError, match="collects a list.*sg.hessian"):
        sg.grad(directional_collected)(X4, np.ones(4))


def rnn_two_args(x, w):
    h = 0.0
    for t in range(len(x)):
        h = np.tanh(w * h + x[t])
    while h < 2.0:
        h = h + w * w
    return h


def test_hessian_blocks_for_a_tuple_wrt_through_loops():
    w = 0.7
    blocks = sg.hessian(rnn_two_args, wrt=(0, 1))(X4, w)
    gx, gw = sg.grad(rnn_two_args, wrt=0), sg.grad(rnn_two_args, wrt=1)
    _close(blocks[0][0], _fd_hessian(lambda x: gx(x, w), X4), 1e-6)
    _close(blocks[0][1], numeric_jacobian(lambda v: gx(X4, v), (w,)), 1e-6)
    _close(blocks[1][0], blocks[0][1], 1e-10)  # symmetric across blocks
    assert float(blocks[1][1]) == pytest.approx(
        float(numeric_gradient(lambda v: gw(X4, v), (w,), {}, 0)), rel=1e-6)
    assert sg.grad(sg.grad(rnn_two_args, wrt=1), wrt=1)(X4, w) == pytest.approx(
        float(blocks[1][1]), rel=1e-10)
