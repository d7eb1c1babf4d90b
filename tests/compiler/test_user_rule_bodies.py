"""Users' derivative rules written with the whole NumPy vocabulary (API.md, custom rules;
issue 14 item 4): a rule body reads ``L.T``, ``L.shape[0]``, ``np.shape(L)[-1]``,
``len(x)``, ``x.ndim``, slices, does Python int arithmetic on those, and calls ``np.eye(n)``,
``np.tri(n)``, ``np.linalg.solve``/``inv`` on sizes known only when the derivative runs.
The compiler lowers the body with its frontend (``frontend/rule_bodies.py``), so it also
differentiates again at second order; the runtime runs it on Tensors. Each is checked
against central finite differences of the plain NumPy function.

The Cholesky rule is written twice: masking with ``np.tri(n)`` (a zero-derivative factory)
and, as the textbook writes it, with ``np.tril`` (a linear rule of its own).
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_jacobian

import srcgrad as sg
from srcgrad.rules.registry import restore, snapshot


@pytest.fixture(autouse=True)
def _clean_table():
    state = snapshot()
    sg.clear_cache()
    yield
    restore(state)
    sg.clear_cache()


def _spd(n=3, seed=0):
    b = np.random.default_rng(seed).standard_normal((n, n))
    return b @ b.T + n * np.eye(n)


# --- a Cholesky srcgrad is told nothing about, with Murray's (2016) textbook rules ----------

def my_cholesky(A):
    return np.linalg.cholesky(A)


def _phi(X):
    """The lower triangle of X with its diagonal halved."""
    n = np.shape(X)[-1]
    return X * (np.tri(n) - 0.5 * np.eye(n))


def cholesky_vjp(g, L, A):
    n = np.shape(L)[-1]
    Linv = np.linalg.solve(L, np.eye(n))
    P = _phi(np.dot(L.T, g))
    S = np.dot(Linv.T, np.dot(P, Linv))
    return 0.5 * (S + S.T)


def cholesky_jvp(t, L, A):
    Linv = np.linalg.inv(L)
    return np.dot(L, _phi(np.dot(Linv, np.dot(t, Linv.T))))


def _register_cholesky(with_jvp=True):
    wrapped = sg.defvjp(my_cholesky, cholesky_vjp)
    if with_jvp:
        wrapped = sg.defjvp(my_cholesky, cholesky_jvp)
    return wrapped


def gp_like(A):
    L = my_cholesky(A)
    return np.sum(np.log(np.diag(L))) * 2.0 + np.sum(np.sin(L))


def _symmetric_direction(n, seed):
    d = np.random.default_rng(seed).standard_normal((n, n))
    return d + d.T


def _fd_gradient_symmetric(fn, A):
    """The gradient along symmetric perturbations (Cholesky reads only the lower triangle,
    so a rule returning the symmetric cotangent is checked on symmetric directions)."""
    n = A.shape[0]
    out = []
    for k in range(4):
        d = _symmetric_direction(n, k)
        out.append((d, float(directional_derivative(fn, [A], {0: d}))))
    return out


def test_user_cholesky_rule_with_transposes_shapes_and_factories_differentiates_in_reverse():
    _register_cholesky()
    A = _spd()
    g = sg.grad(gp_like)(A)
    for d, want in _fd_gradient_symmetric(gp_like, A):
        assert_close(np.sum(g * d), want, rtol=1e-5, atol=1e-6)


def test_user_cholesky_rule_differentiates_in_forward_mode():
    _register_cholesky()
    A = _spd()
    for k in range(3):
        d = _symmetric_direction(3, 10 + k)
        value, tangent = sg.jvp(gp_like)(A, d)
        assert_close(value, gp_like(A))
        assert_close(tangent, directional_derivative(gp_like, [A], {0: d}), rtol=1e-5)


def test_user_cholesky_rule_body_differentiates_again_for_the_hessian():
    _register_cholesky()
    A = _spd()
    grad = sg.grad(gp_like)
    H = sg.hessian(gp_like)(A)
    d = _symmetric_direction(3, 3)
    # H applied to a symmetric direction, against differences of the (checked) gradient
    want = directional_derivative(grad, [A], {0: d})
    got = np.tensordot(H, d, axes=2)
    assert_close(0.5 * (got + got.T), 0.5 * (want + want.T), rtol=1e-4, atol=1e-5)


def _phi_tril(X):
    """Murray's Phi spelled with np.tril: the lower triangle, its diagonal halved."""
    return np.tril(X) - 0.5 * np.diag(np.diagonal(X))


def cholesky_vjp_tril(g, L, A):
    P = _phi_tril(L.T @ g)
    Linv = np.linalg.inv(L)
    S = Linv.T @ P @ Linv
    return 0.5 * (S + S.T)


def test_user_cholesky_rule_written_with_np_tril_differentiates_in_the_compiler_and_runtime():
    wrapped = sg.defvjp(my_cholesky, cholesky_vjp_tril)
    A = _spd(4, seed=5)
    g = sg.grad(gp_like)(A)
    for d, want in _fd_gradient_symmetric(gp_like, A):
        assert_close(np.sum(g * d), want, rtol=1e-5, atol=1e-6)
    t = sg.tensor(A, requires_grad=True)
    L = wrapped(t)  # the user's rule on the runtime too (np.linalg.cholesky reads one triangle)
    (sg.sum(sg.log(sg.diagonal(L))) * 2.0 + sg.sum(sg.sin(L))).backward()
    assert_close(t.grad.numpy(), g, rtol=1e-10, atol=1e-12)


def cubed_cholesky(A):
    return np.sum(my_cholesky(A) ** 3)


def test_user_cholesky_rule_runs_on_tensors_with_backward_and_create_graph():
    wrapped = _register_cholesky()
    A = _spd()
    t = sg.tensor(A, requires_grad=True)
    L = wrapped(t)
    y = (L * L * L).sum()
    (g,) = sg.autograd.grad(y, [t], create_graph=True)
    for d, want in _fd_gradient_symmetric(lambda a: np.sum(np.linalg.cholesky(a) ** 3), A):
        assert_close(float((g.detach() * sg.tensor(d)).sum()), want, rtol=1e-5)
    # second order through the rule body run on Tensors: d/dA <g, D>, against differences
    # of the compiler's gradient (itself checked against differences first)
    compiled = sg.grad(cubed_cholesky)
    for d, want in _fd_gradient_symmetric(cubed_cholesky, A):
        assert_close(np.sum(compiled(A) * d), want, rtol=1e-5)
    d = _symmetric_direction(3, 5)
    (h,) = sg.autograd.grad((g * sg.tensor(d)).sum(), [t])

    def first(a):
        return np.sum(compiled(a) * d)
    for e, want in _fd_gradient_symmetric(first, A):
        assert_close(float((h * sg.tensor(e)).sum()), want, rtol=1e-4, atol=1e-5)


def test_user_cholesky_rule_backward_on_tensors():
    wrapped = _register_cholesky()
    A = _spd(4, seed=2)
    t = sg.tensor(A, requires_grad=True)
    L = wrapped(t)
    (L.sum() * 2.0).backward()
    for d, want in _fd_gradient_symmetric(lambda a: 2.0 * np.sum(np.linalg.cholesky(a)), A):
        assert_close(float((t.grad * sg.tensor(d)).sum()), want, rtol=1e-5)


# --- a function of our choice: a row-wise softmax with shape arithmetic in its rules -------

def rowsoft(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def rowsoft_vjp(g, out, x):
    rows, cols = x.shape[0], len(x[0])
    assert x.ndim == 2
    flat = np.reshape(g * out, (rows * cols,))
    back = np.reshape(flat[: rows * cols], (rows, cols))
    return back - out * np.sum(back, axis=x.ndim - 1, keepdims=True)


def rowsoft_jvp(t, out, x):
    return out * (t - np.sum(out * t, axis=-1, keepdims=True))


def uses_rowsoft(x):
    p = rowsoft(x)
    return np.sum(p * np.cos(x)) + np.sum(p[:, 0] ** 2)


X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])


def test_user_rule_with_len_ndim_slices_and_int_arithmetic_differentiates_in_every_mode():
    sg.defvjp(rowsoft, rowsoft_vjp)
    sg.defjvp(rowsoft, rowsoft_jvp)
    want = numeric_gradient(uses_rowsoft, [X], {}, 0)
    assert_close(sg.grad(uses_rowsoft)(X), want, rtol=1e-5)
    u = np.random.default_rng(1).standard_normal(X.shape)
    _, tangent = sg.jvp(uses_rowsoft)(X, u)
    assert_close(tangent, np.sum(want * u), rtol=1e-5)
    grad = sg.grad(uses_rowsoft)
    H = sg.hessian(uses_rowsoft)(X)
    assert_close(np.reshape(H, (6, 6)), np.reshape(numeric_jacobian(grad, [X]), (6, 6)),
                 rtol=1e-4, atol=1e-5)


def test_user_rule_with_len_ndim_and_slices_runs_on_tensors():
    wrapped = sg.defvjp(rowsoft, rowsoft_vjp)
    t = sg.tensor(X, requires_grad=True)
    (wrapped(t) * sg.tensor(np.cos(X))).sum().backward()
    want = numeric_gradient(lambda x: np.sum(rowsoft(x) * np.cos(X)), [X], {}, 0)
    assert_close(t.grad, want, rtol=1e-5)


# --- refusals name the user's rule ----------------------------------------------------------

def cube(x):
    return x ** 3


def cube_vjp_calling_something_without_a_rule(g, out, x):
    return g * 3.0 * x * np.frexp(x)[0] * 2.0 ** np.frexp(x)[1]


def test_a_rule_body_calling_a_function_without_a_rule_works_at_first_order():
    sg.defvjp(cube, cube_vjp_calling_something_without_a_rule)

    def f(x):
        return np.sum(cube(x))
    x = np.array([0.5, 1.5])
    assert_close(sg.grad(f)(x), numeric_gradient(f, [x], {}, 0), rtol=1e-5)


def test_a_rule_body_calling_a_function_without_a_rule_is_refused_at_second_order():
    sg.defvjp(cube, cube_vjp_calling_something_without_a_rule)

    def f(x):
        return np.sum(cube(x))
    with pytest.raises(sg.SrcGradError) as info:
        sg.hessian(f)(np.array([0.5, 1.5]))
    text = str(info.value)
    line = cube_vjp_calling_something_without_a_rule.__code__.co_firstlineno
    assert "np.frexp" in text, text
    assert "cube_vjp_calling_something_without_a_rule" in text, text
    assert f"test_user_rule_bodies.py:{line}" in text, text
    assert info.value.advice, text


def cube_vjp_with_shape_queries(g, out, x):
    n = np.ndim(x) + 3  # 3 for a float: Python int arithmetic on queries
    return g * (n - len(np.shape(x)) - np.ndim(x)) * x ** 2


def twice_cube(x):
    return cube(x) * 2.0 + np.sin(x)


def test_a_rule_body_with_shape_queries_differentiates_again_with_grad_of_grad():
    sg.defvjp(cube, cube_vjp_with_shape_queries)
    grad = sg.grad(twice_cube)
    assert_close(grad(0.7), numeric_gradient(twice_cube, [0.7], {}, 0), rtol=1e-6)
    assert_close(sg.grad(grad)(0.7), numeric_gradient(grad, [0.7], {}, 0), rtol=1e-5)
