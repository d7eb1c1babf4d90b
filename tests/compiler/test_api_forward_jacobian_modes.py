"""sg.jacobian picks its mode per call from the sizes: reverse (one vjp pass per result
element) for a wide function, forward (one jvp pass per input element) for a tall one;
both modes agree with each other and with finite differences, and sg.hessian stays
forward over reverse."""

import numpy as np
import pytest
from fd import assert_close, numeric_jacobian

import srcgrad as sg
from srcgrad.compiler.api import _forward_jacobian
from srcgrad.compiler.jacobians import choose_mode

W = np.linspace(-1.0, 1.0, 20).reshape(2, 10)
X10 = np.linspace(0.1, 1.0, 10)
X2 = np.array([0.4, -0.7])


def wide(x):  # R^10 -> R^2
    return np.tanh(W @ x) * np.sum(x * x)


def tall(x):  # R^2 -> R^10
    return np.sin(W.T @ x) * x[0]


def wide_in_a_loop(x, y, w):  # (R^10, R^2) -> R^2, through a for with a break
    acc = y
    for row in w:
        if np.sum(acc) > 50.0:
            break
        acc = acc * np.sum(row * x)
    return acc


def test_choose_mode_prefers_the_smaller_number_of_passes():
    assert choose_mode(2, 10) == "reverse"
    assert choose_mode(10, 2) == "forward"
    assert choose_mode(3, 3) == "forward"


@pytest.mark.parametrize("fn, x, mode", [(wide, X10, "reverse"), (tall, X2, "forward")])
def test_jacobian_matches_finite_differences_and_the_other_mode(fn, x, mode):
    J = sg.jacobian(fn)
    got = J(x)
    assert J.last_mode == mode
    assert got.shape == np.shape(fn(x)) + x.shape
    assert_close(got, numeric_jacobian(fn, (x,), 0))
    assert_close(got, _forward_jacobian(fn, 0)(x))  # forward mode, whatever the sizes
    pullback = sg.vjp(fn)
    by_rows = np.stack([pullback(x, e) for e in np.eye(np.size(fn(x)))])
    assert_close(got, by_rows)


def test_reverse_mode_makes_one_vjp_pass_per_result_element_and_forward_one_batched_pass(
        monkeypatch):
    import srcgrad.compiler.api as api

    calls = {"vjp": 0, "jvp": 0}

    def counting(kind, make):
        def derive(f, **options):
            derived = make(f, **options)

            def run(*args, **kwargs):
                calls[kind] += 1
                return derived(*args, **kwargs)

            run.__srcgrad__ = derived.__srcgrad__
            return run
        return derive

    monkeypatch.setattr(api, "vjp", counting("vjp", api.vjp))
    monkeypatch.setattr(api, "jvp", counting("jvp", api.jvp))
    api.jacobian(wide)(X10)
    assert calls == {"vjp": 2, "jvp": 0}
    J = api.jacobian(tall)
    J(X2)
    # forward mode: both columns in one batched pass, no per-column jvp call
    assert calls == {"vjp": 2, "jvp": 0} and J.last_batched


def test_the_mode_is_chosen_per_call_from_the_actual_sizes():
    def scaled(x):
        return x[:2] * np.sum(x)

    J = sg.jacobian(scaled)
    assert J(X10).shape == (2, 10) and J.last_mode == "reverse"
    assert J(X2).shape == (2, 2) and J.last_mode == "forward"
    assert_close(J(X10), numeric_jacobian(scaled, (X10,), 0))


def test_reverse_mode_with_a_tuple_wrt_gives_a_tuple_of_blocks():
    J = sg.jacobian(wide_in_a_loop, wrt=(0, 1))
    blocks = J(X10, X2, W)
    assert J.last_mode == "reverse"
    assert [b.shape for b in blocks] == [(2, 10), (2, 2)]
    forward = _forward_jacobian(wide_in_a_loop, (0, 1))(X10, X2, W)
    for i, (got, want) in enumerate(zip(blocks, forward)):
        assert_close(got, want)
        assert_close(got, numeric_jacobian(wide_in_a_loop, (X10, X2, W), i))


def test_reverse_mode_for_a_float_result_of_an_array_and_a_float_argument():
    def energy(x, s):
        return float(np.sum(x ** 3)) * s

    J = sg.jacobian(energy, wrt=(0, 1))
    dx, ds = J(X2, 1.5)
    assert J.last_mode == "reverse"
    assert dx.shape == (2,) and np.shape(ds) == ()
    assert_close(dx, 3.0 * X2 ** 2 * 1.5)
    assert_close(ds, np.sum(X2 ** 3))


def test_a_scalar_function_of_a_scalar_keeps_forward_mode():
    J = sg.jacobian(lambda_free_square)
    assert J(3.0) == pytest.approx(6.0)
    assert J.last_mode == "forward"


def lambda_free_square(x):
    return x * x


def test_hessian_stays_forward_over_reverse():
    def f(x, y):
        return np.sum(np.sin(x) * y[0])

    H = sg.hessian(f, wrt=(0, 1))(X10, X2)
    assert [[b.shape for b in row] for row in H] == [[(10, 10), (10, 2)], [(2, 10), (2, 2)]]
    assert_close(H[0][0], np.diag(-np.sin(X10) * X2[0]))
    assert_close(H[0][1][:, 0], np.cos(X10))


def energy32(x):
    return np.sum(np.sin(x) * x * x)


def wide32(x):  # R^10 -> R^2 with no float64 operand: a float32 result
    return np.stack([np.sum(x * x), np.sum(np.sin(x))])


def tall32(x):  # R^2 -> R^4
    return np.concatenate([np.sin(x) * x[0], np.cos(x)])


@pytest.mark.parametrize("fn, x, mode", [(wide32, X10.astype(np.float32), "reverse"),
                                         (tall32, X2.astype(np.float32), "forward")],
                         ids=["reverse", "forward"])
def test_a_float32_jacobian_is_float32_in_either_mode(fn, x, mode):
    # float32 in and out, float32 blocks, as gradients are (they were cast to float64)
    J = sg.jacobian(fn)
    got = J(x)
    assert got.dtype == np.float32
    assert J.last_mode == mode
    want = numeric_jacobian(fn, (x.astype(np.float64),))
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)


@pytest.mark.parametrize("fn, x, mode", [(wide, X10, "reverse"), (tall, X2, "forward")],
                         ids=["reverse", "forward"])
def test_a_float32_input_meeting_float64_weights_gives_float64_blocks_in_either_mode(fn, x, mode):
    J = sg.jacobian(fn)
    got = J(x.astype(np.float32))
    assert got.dtype == np.float64 and J.last_mode == mode
    np.testing.assert_allclose(got, numeric_jacobian(fn, (x,)), rtol=1e-4, atol=1e-5)


def test_a_float32_hessian_is_float32_and_a_float64_one_float64():
    x32 = np.array([0.3, -0.8, 1.1], dtype=np.float32)
    h32 = sg.hessian(energy32)(x32)
    h64 = sg.hessian(energy32)(x32.astype(np.float64))
    assert h32.dtype == np.float32 and h64.dtype == np.float64
    np.testing.assert_allclose(h32, h64, rtol=1e-5, atol=1e-5)
    assert_close(h64, numeric_jacobian(sg.grad(energy32), (x32.astype(np.float64),)))
