"""Forward mode (sg.jvp), sg.jacobian and sg.hessian, through straight-line code and
control flow, against finite differences."""

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([0.3, -0.5, 0.8])


def model(x, w=2.0):
    z = np.sin(x) * w
    return z * x + w


def test_jvp_returns_value_and_directional_derivative():
    t = np.array([1.0, 0.5, -2.0])
    value, tangent = sg.jvp(model)(X, t)
    assert_close(value, model(X))
    assert_close(tangent, (np.cos(X) * 2.0 * X + np.sin(X) * 2.0) * t)


def test_jvp_with_a_tuple_wrt_sums_the_directional_derivatives():
    value, tangent = sg.jvp(model, wrt=(0, 1))(X, (np.ones(3), 1.0))
    want = (np.cos(X) * 2.0 * X + np.sin(X) * 2.0) + (np.sin(X) * X + 1.0)
    assert_close(tangent, want)


def test_jvp_of_a_float_function_gives_floats():
    value, tangent = sg.jvp(lambda_free_cube)(2.0, 1.0)
    assert tangent == pytest.approx(12.0)


def lambda_free_cube(x):
    return x ** 3


def looped(x, n):
    s = x
    for i in range(n):
        if np.sum(s) > 1.0:
            break
        s = s * 1.5 + np.sin(x)
    return np.sum(s * s)


def rows(a):
    total = 0.0
    for row in a:
        total = total + np.sum(np.tanh(row) * row)
    return total


@pytest.mark.parametrize("fn, args", [(looped, (X, 4)), (looped, (X * 0.1, 6)),
                                      (rows, (np.stack([X, X * 2.0]),))])
def test_jacobian_through_control_flow_matches_finite_differences(fn, args):
    assert_close(sg.jacobian(fn)(*args), numeric_gradient(fn, args, {}, 0))


def vector_valued(x):
    return np.sin(x) * x[0]


def test_jacobian_shape_is_out_shape_plus_x_shape():
    J = sg.jacobian(vector_valued)(X)
    assert J.shape == (3, 3)
    want = np.diag(np.cos(X) * X[0])
    want[:, 0] += np.sin(X)
    assert_close(J, want)


def quadratic_form(x, y):
    return np.sum(x * x * y + np.sin(y))


def test_hessian_is_the_jacobian_of_the_gradient():
    H = sg.hessian(quadratic_form)(X, X + 1.0)
    assert_close(H, np.diag(2.0 * (X + 1.0)))
    blocks = sg.hessian(quadratic_form, wrt=(0, 1))(X, X + 1.0)
    assert [[b.shape for b in row] for row in blocks] == [[(3, 3)] * 2] * 2
    assert_close(blocks[0][1], np.diag(2.0 * X))
    assert_close(blocks[1][1], np.diag(-np.sin(X + 1.0)))


def test_hessian_vector_product_by_forward_over_reverse():
    v = np.array([1.0, 0.0, 2.0])
    _, hv = sg.jvp(sg.grad(quadratic_form))(X, X + 1.0, v)
    assert_close(hv, 2.0 * (X + 1.0) * v)


def only_vjp_rule(v):
    return v * 2.0


def test_forward_mode_through_a_vjp_only_rule_points_to_defjvp():
    from srcgrad.rules.registry import restore, snapshot

    state = snapshot()
    try:
        sg.defvjp(only_vjp_rule, lambda g, out, v: g * 2.0)

        def uses(x):
            return np.sum(only_vjp_rule(x))

        with pytest.raises(sg.SrcGradError, match="defjvp"):
            sg.jvp(uses)(X, np.ones(3))
    finally:
        restore(state)


def recurrent(x, w):
    h = 0.0 * x[0]
    hs = []
    for t in range(len(x)):
        h = np.tanh(w * h + x[t])
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


@pytest.mark.parametrize("wrt", [0, 1])
def test_forward_mode_through_a_list_built_at_run_time(wrt):
    args = (X, 0.7)
    assert_close(sg.jacobian(recurrent, wrt=wrt)(*args), numeric_gradient(recurrent, args, {},
                                                                           wrt))
