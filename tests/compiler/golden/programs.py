"""Programs whose emitted derivative source is kept as golden files next to this one.

Each entry of PROGRAMS: name -> (function, transform, wrt, example arguments). Changing a
function here moves the ``# line N`` comments of every golden file below it: regenerate
with ``pytest tests/compiler/test_golden.py --update-golden`` and review the diff.
"""

import math

import numpy as np

import srcgrad as sg


def sin_sum(x):
    return np.sin(x * 3).sum()


def poly(x):
    y = math.sin(x) * x ** 2
    return y + 1.0


def mlp_loss(w, b, x):
    h = np.tanh(x @ w + b)
    return np.mean(h ** 2)


def outer_broadcast(x, y):
    table = x[:, None] * y
    return np.sum(table * table)


def pair(x, y):
    return x * y, np.sin(x)


def _scale(v, k=2.0):
    return v * k


def with_calls(x):
    def shift(v):
        return v + 1.0

    square = lambda v: v * v  # noqa: E731
    return np.sum(square(shift(_scale(x))))


def methods(x):
    m = x.reshape(2, 3)
    return (m.T @ m).sum(axis=0).mean()


def writes_into_copy(x):
    y = x.copy()
    y[0] = 2.0 * x[1]
    y += x
    return np.sum(y * y)


def stopped(x, y, n):
    scale = sg.stop_gradient(np.max(x))
    return np.sum(x * scale * n)


def loop_with_branch(x, n):
    acc = x
    for i in range(n):
        if i % 2 == 0:
            acc = acc * x
        else:
            acc = acc + np.sin(acc)
    return np.sum(acc)


def while_doubling(x):
    steps = 0
    while x < 100.0:
        x = x * 2.0
        steps += 1
    return x


def first_large_row(a):
    for row in a:
        if np.sum(row) > 1.0:
            return np.sum(row * row)
    return np.sum(a)


def halve_until_small(x):
    while True:
        if np.max(np.abs(x)) < 1.0:
            break
        x = x * 0.5
    return np.sum(np.sin(x))


def running_sums(x):
    y = np.zeros_like(x)
    total = 0.0
    for i in range(len(x)):
        total = total + x[i] * x[i]
        y[i] = total
    return np.sum(y)


def rnn_states(x, w):
    h = 0.0 * x[0]
    states = []
    for t in range(len(x)):
        h = np.tanh(w * h + x[t])
        states.append(h)
    return np.sum(np.stack(states) ** 2)


DATA = np.array([[1.0, -0.5, 2.0], [0.25, 1.5, -1.0]])
TARGETS = np.array([0.5, -0.25])
DECAY = 0.01


def data_fit(w):
    """Module-level data: read by the emitted code when it runs, never copied into it."""
    loss = DECAY * np.sum(w * w)
    for row, t in zip(DATA, TARGETS):
        loss = loss + (np.tanh(np.dot(row, w)) - t) ** 2
    return loss


NORMALIZE = False


def compile_time_control(x):
    """Control flow known while compiling: the comments say what was unrolled or folded."""
    h = x
    for k, scale in enumerate((0.5, 2.0, 1.5)):
        h = np.tanh(h * scale) + k
    n = 0
    while n < 2:
        h = h * h
        n += 1
    if NORMALIZE:
        h = h / np.sum(h)
    return np.sum(h)


A = np.ones(3)
PROGRAMS = {
    "sin_sum": (sin_sum, "grad", 0, (A,)),
    "poly_float": (poly, "grad", 0, (0.5,)),
    "mlp_loss": (mlp_loss, "grad", (0, 1), (np.ones((3, 2)), np.ones(2), np.ones((4, 3)))),
    "outer_broadcast": (outer_broadcast, "grad", (0, 1), (A, np.ones(2))),
    "pair_vjp": (pair, "vjp", (0, 1), (A, A, (A, A))),
    "with_calls": (with_calls, "value_and_grad", 0, (A,)),
    "methods": (methods, "grad", 0, (np.ones(6),)),
    "writes_into_copy": (writes_into_copy, "grad", 0, (A,)),
    "stopped_generic": (stopped, "grad", (0, 1), ()),
    "loop_with_branch": (loop_with_branch, "grad", 0, (A, 3)),
    "while_doubling": (while_doubling, "grad", 0, (3.0,)),
    "loop_with_branch_jvp": (loop_with_branch, "jvp", 0, (A, 3, A)),
    "first_large_row": (first_large_row, "grad", 0, (np.ones((3, 2)),)),
    "halve_until_small": (halve_until_small, "grad", 0, (A * 5.0,)),
    "running_sums": (running_sums, "grad", 0, (A,)),
    "rnn_states": (rnn_states, "grad", (0, 1), (A, 0.5)),
    "data_fit": (data_fit, "grad", 0, (A,)),
    "compile_time_control": (compile_time_control, "grad", 0, (A * 0.3,)),
}


def loop_passes(x, k, n):
    # loop passes: -k and np.cos(x) hoisted, y's shape known in the body (no unbroadcast),
    # sin/cos the forward loop computed popped (not recomputed), a + -b folded to a - b
    y = x
    for _ in range(n):
        y = y + 0.1 * (-k * np.sin(y)) * np.cos(y) - -np.cos(x)
    return np.sum(y * y)


PROGRAMS["loop_passes"] = (loop_passes, "grad", (0, 1), (A * 0.4, 1.7, 4))


def _ode_rhs(s, p):
    return np.array([s[1], -p[0] * np.sin(s[0]) - p[1] * s[1]])


def ode_heun(p, s0, n):
    # element reads: each stage's adjoint writes one np.zeros per index (no scatter_add);
    # np.array([...]) of numbers as np.array; the stages share a static shape (2,), so
    # their sums run no unbroadcast or np.shape
    s = s0
    for _ in range(n):
        k1 = _ode_rhs(s, p)
        k2 = _ode_rhs(s + 0.1 * k1, p)
        s = s + 0.05 * (k1 + k2)
    return np.sum(s * s)


PROGRAMS["ode_heun"] = (ode_heun, "grad", (0, 1), (np.array([4.0, 0.3]), np.array([1.0, 0.2]), 3))


def masked_gate(x, y):
    # a small-array chain: np.where's and np.maximum's adjoints call the mask helpers'
    # ndarray versions; sqrt(y * y + c)'s halving cancels the square's doubling; the
    # division's two adjoints share g / k; tanh's adjoint reads the user's square
    r = np.sqrt(y * y + 0.25)
    k = np.maximum(np.tanh(x) - r, 0.0) + 0.1
    m = (x * y) / k
    t = np.tanh(m) ** 2
    v = np.where(y > 0.0, t * r, t / r)
    return np.sum(v * x)


PROGRAMS["masked_gate"] = (masked_gate, "grad", (0, 1),
                           (np.linspace(-1.0, 1.0, 5), np.linspace(0.7, -0.9, 5)))


def per_sequence_attention(Wq, Wv, x):
    # a loop taping matrices per iteration: they are written into buffers the function
    # keeps between calls (buffers.into, the plain expression while they are small)
    total = 0.0
    for b in range(x.shape[0]):
        xb = x[b]
        q, v = xb @ Wq, xb @ Wv
        s = q @ q.T
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p = p / p.sum(axis=1, keepdims=True)
        total = total + np.sum((p @ v) ** 2)
    return total


PROGRAMS["per_sequence_attention"] = (
    per_sequence_attention, "grad", (0, 1),
    (np.eye(3) * 0.5, np.ones((3, 3)) * 0.25, np.linspace(-1.0, 1.0, 24).reshape(2, 4, 3)))
