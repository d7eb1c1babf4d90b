"""Recursion at a depth known only at run time: a recursive call is a call of the
function's own derived functions (srcgrad/compiler/frontend/recursion.py), not an unrolled
copy, in reverse, forward and second order, against central finite differences."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.linspace(0.1, 1.0, 5)
V = np.linspace(1.0, -1.0, 5)


def smooth(x, n):
    if n == 0:
        return x
    return smooth(np.sin(x) * 0.9 + 0.1 * x, n - 1)


def smooth_three_times(x):
    return np.sum(smooth(x, 3) ** 2)


def smoothed_energy(x, n):
    return np.sum(smooth(x, n) ** 2)


def pairwise(x):
    if len(x) == 1:
        return x[0] * x[0]
    h = len(x) // 2
    return pairwise(x[:h]) + 1.5 * pairwise(x[h:])


def halving(x):
    if np.sum(x) < 1.0:
        return np.sum(x)
    return halving(x * 0.5)


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def test_recursive_helper_called_with_a_literal_depth_differentiates_in_reverse_and_forward():
    assert_close(sg.grad(smooth_three_times)(X),
                 numeric_gradient(smooth_three_times, (X,), {}, 0))
    _, tangent = sg.jvp(smooth_three_times)(X, V)
    assert_close(tangent, directional_derivative(smooth_three_times, (X,), {0: V}))


def test_recursive_helper_called_with_a_literal_depth_differentiates_at_second_order():
    g = sg.grad(smooth_three_times)
    assert_close(sg.hessian(smooth_three_times)(X), numeric_hessian(g, (X,)))

    def gradient_norm(x):
        return np.sum(sg.grad(smooth_three_times)(x) ** 2)

    assert_close(sg.grad(gradient_norm)(X), numeric_gradient(gradient_norm, (X,), {}, 0))


@pytest.mark.parametrize("depth", [0, 1, 5, 300])
def test_recursion_on_an_int_argument_differentiates_at_any_depth(depth):
    assert_close(sg.grad(smoothed_energy)(X, depth),
                 numeric_gradient(smoothed_energy, (X, depth), {}, 0))
    _, tangent = sg.jvp(smoothed_energy)(X, depth, V)
    assert_close(tangent, directional_derivative(smoothed_energy, (X, depth), {0: V}))


@pytest.mark.parametrize("depth", [0, 1, 5])
def test_recursion_on_an_int_argument_differentiates_at_second_order(depth):
    g = sg.grad(smoothed_energy)
    assert_close(sg.hessian(smoothed_energy)(X, depth), numeric_hessian(g, (X, depth)))

    def gradient_norm(x, n):
        return np.sum(sg.grad(smoothed_energy)(x, n) ** 2)

    assert_close(sg.grad(gradient_norm)(X, depth),
                 numeric_gradient(gradient_norm, (X, depth), {}, 0))


def test_recursion_on_an_int_argument_emits_the_same_code_at_every_depth():
    # the depth is a run-time value of the emitted code: nothing is unrolled per value
    df = sg.grad(smoothed_energy)
    shallow = sg.source(df, X, 0)
    assert sg.source(df, X, 300) == shallow
    assert sg.source(df, X, 5) == shallow
    fw = sg.jvp(smoothed_energy)
    assert sg.source(fw, X, 300, V) == sg.source(fw, X, 0, V)


def test_recursion_near_the_recursion_limit_differentiates():
    # a fifth of the limit, in both modes (test_recursion_pairs goes as deep as the primal)
    depth = sys.getrecursionlimit() // 5
    assert_close(sg.grad(smoothed_energy)(X, depth),
                 numeric_gradient(smoothed_energy, (X, depth), {}, 0))
    _, tangent = sg.jvp(smoothed_energy)(X, depth, V)
    assert_close(tangent, directional_derivative(smoothed_energy, (X, depth), {0: V}))


@pytest.mark.parametrize("n", [1, 2, 7, 16])
def test_recursion_whose_depth_follows_a_shape_differentiates(n):
    x = np.linspace(0.2, 1.3, n)
    v = np.cos(np.arange(n) + 0.5)
    assert_close(sg.grad(pairwise)(x), numeric_gradient(pairwise, (x,), {}, 0))
    _, tangent = sg.jvp(pairwise)(x, v)
    assert_close(tangent, directional_derivative(pairwise, (x,), {0: v}))
    assert_close(sg.hessian(pairwise)(x), numeric_hessian(sg.grad(pairwise), (x,)))


def test_recursion_whose_depth_follows_a_shape_emits_one_version_for_every_length():
    df = sg.grad(pairwise)
    assert sg.source(df, np.ones(2)) == sg.source(df, np.ones(64))


def test_recursion_on_a_run_time_condition_differentiates():
    x = X + 3.0
    assert_close(sg.grad(halving)(x), numeric_gradient(halving, (x,), {}, 0))
    _, tangent = sg.jvp(halving)(x, V)
    assert_close(tangent, directional_derivative(halving, (x,), {0: V}))


def test_recursion_on_floats_and_ints_differentiates():
    assert sg.grad(power)(1.5, 3) == pytest.approx(3 * 1.5 ** 2)
    assert sg.grad(power)(2.0, 4) == pytest.approx(32.0)
    assert_close(sg.grad(power)(np.array([1.5]), 2), np.array([3.0]))
    assert sg.jvp(power)(1.5, 3, 1.0)[1] == pytest.approx(3 * 1.5 ** 2)


def swallow(xs, n):
    if n == 0:
        return xs[0] + xs[1]
    return swallow([xs[0] * 2.0, xs[1]], n - 1)


def uses_swallow(x):
    return np.sum(swallow([x, x * x], 2))


def test_recursion_passing_a_list_of_traced_values_is_refused_with_advice():
    with pytest.raises(sg.SrcGradError, match="calls itself with a list") as info:
        sg.grad(uses_swallow)(X)
    assert "test_recursion.py:" in str(info.value)
    assert "loop" in str(info.value)


def noisy_smooth(x, n):
    if n == 0:
        return x
    return noisy_smooth(x + np.random.normal(size=x.shape) * x, n - 1)


def uses_noisy_smooth(x):
    return np.sum(noisy_smooth(x, 2))


def test_recursion_through_a_random_draw_is_refused_with_advice():
    # each level's derivative reruns that level: a second draw would give the gradient of
    # another noise, silently
    for transform in (sg.grad(uses_noisy_smooth), sg.grad(lambda x: np.sum(noisy_smooth(x, 3)))):
        with pytest.raises(sg.SrcGradError, match="calls itself and calls") as info:
            transform(X)
        assert "test_recursion.py:" in str(info.value)
        assert "pass it in as an argument" in str(info.value)
    with pytest.raises(sg.SrcGradError, match="calls itself and calls"):
        sg.jvp(noisy_smooth)(X, 3, V)


def ping(x, n):
    if n <= 0:
        return np.tanh(x)
    return pong(x * 0.9, n - 1) + 0.5 * x


def pong(x, n):
    return np.sin(ping(x, n - 1)) * x


def mutual(x, n):
    return np.sum(ping(x, n) ** 2)


@pytest.mark.parametrize("depth", [0, 1, 6, 51])
def test_mutual_recursion_differentiates(depth):
    assert_close(sg.grad(mutual)(X, depth), numeric_gradient(mutual, (X, depth), {}, 0))
    _, tangent = sg.jvp(mutual)(X, depth, V)
    assert_close(tangent, directional_derivative(mutual, (X, depth), {0: V}))
    assert_close(sg.hessian(mutual)(X, depth), numeric_hessian(sg.grad(mutual), (X, depth)))


def test_emitted_module_says_why_a_recursive_call_is_called_and_not_inlined():
    text = sg.source(sg.grad(smooth_three_times), X)
    assert "# a recursive call is a call of the function's own derived function" in text
    assert "every other user function is inlined" in text
    assert "every other user function is inlined" not in sg.source(
        sg.grad(lambda x: np.sum(np.sin(x))), X)
