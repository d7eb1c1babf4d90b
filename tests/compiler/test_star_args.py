"""``*args`` parameters: of the differentiated function (compiler/varargs.py) and of a
function called inside it (frontend/calls.py), with ``**kwargs`` of a called function.

The differentiated function gets one version per number of positional arguments, and
``wrt`` counts the positional arguments as passed (named or in ``*args``). A called
function's ``*args``/``**kwargs`` are bound to the tuple/dict of what the call passes.
Checked against central finite differences in reverse, forward and second order.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

W = np.array([0.5, -1.5, 2.0])


def symmetrized(a):
    lower = np.tril(a)
    return (lower + np.swapaxes(lower, -1, -2)) / 2.0


def cholesky_of_symmetrized(*args):
    return np.linalg.cholesky(symmetrized(args[0]), *args[1:])


def weighted(x, *rest, scale=2.0):
    total = scale * np.sum(np.sin(x) * rest[0])
    for r in rest[1:]:
        total = total + r * np.sum(x)
    return total


def _spd():
    a = np.array([[1.0, 0.2, -0.4], [0.3, 1.5, 0.1], [-0.2, 0.6, 0.9]])
    return a @ a.T + 3.0 * np.eye(3)


def test_lambda_of_star_args_around_cholesky_matches_differences_in_both_modes():
    a = _spd()
    seed = np.random.default_rng(2).standard_normal((3, 3))
    assert_close(sg.vjp(cholesky_of_symmetrized)(a, seed),
                 numeric_gradient(cholesky_of_symmetrized, [a], {}, 0, seed=seed),
                 rtol=1e-5, atol=1e-6)
    t = np.random.default_rng(3).standard_normal((3, 3))
    value, tangent = sg.jvp(cholesky_of_symmetrized)(a, t)
    assert_close(value, cholesky_of_symmetrized(a))
    assert_close(tangent, directional_derivative(cholesky_of_symmetrized, [a], {0: t}),
                 rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_wrt_counts_positional_arguments_as_passed(wrt):
    args = [np.array([0.3, -0.2, 0.9]), np.array([1.0, 2.0, -1.0]), 0.5]
    got = sg.grad(weighted, wrt=wrt)(*args)
    assert_close(got, numeric_gradient(weighted, args, {}, wrt))
    assert type(got) is type(args[wrt])


def test_star_args_versions_follow_the_number_of_arguments_and_keywords():
    x, r = np.array([0.3, -0.2, 0.9]), np.array([1.0, 2.0, -1.0])
    g = sg.grad(weighted)
    assert_close(g(x, r), numeric_gradient(weighted, [x, r], {}, 0))
    assert_close(g(x, r, 0.5, -2.0), numeric_gradient(weighted, [x, r, 0.5, -2.0], {}, 0))
    assert_close(g(x, r, scale=3.0), numeric_gradient(weighted, [x, r], {"scale": 3.0}, 0))


def cubic_product(*a):
    return a[0] ** 3 * a[1]


def test_star_args_differentiate_twice():
    assert_close(sg.grad(sg.grad(cubic_product))(2.0, 3.0),
                 numeric_gradient(sg.grad(cubic_product), [2.0, 3.0], {}, 0, eps=1e-5),
                 rtol=1e-5, atol=1e-6)
    x, y = np.array([0.4, -0.3, 1.1]), np.array([1.0, -2.0, 0.5])
    h = sg.hessian(lambda *a: np.sum(np.sin(a[0]) * a[1] * W))(x, y)
    want = numeric_hessian(sg.grad(lambda *a: np.sum(np.sin(a[0]) * a[1] * W)), [x, y], 0)
    assert_close(h, want, rtol=1e-4, atol=1e-5)


def norm_squared(*args, **kwargs):
    return np.sum(args[0] ** 2 * W) * kwargs.get("weight", 1.0)


def calls_star_args_functions(x):
    first = norm_squared(x, "ignored", weight=2.0)
    second = (lambda *a: a[0][0] * a[1])(x, 4.0)
    return first + second + norm_squared(*[np.sin(x)])


def test_called_functions_with_star_args_and_kwargs_are_inlined_with_their_arguments():
    check_all_modes(calls_star_args_functions, np.array([0.3, -1.2, 0.8]))


def nested_star_args(x):
    def apply(fn, *args):
        return fn(*args)
    return apply(np.dot, x, W) + apply(lambda *v: np.sum(v[0] ** 3), x)


def test_nested_def_with_star_args_is_inlined():
    check_all_modes(nested_star_args, np.array([0.3, -1.2, 0.8]))


def with_kwargs(x, **options):
    return np.sum(x * options["w"])


def test_star_args_name_in_wrt_is_refused_with_advice():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(weighted, wrt="rest")
    assert "*rest" in str(info.value) and "position" in info.value.advice


def test_kwargs_of_the_differentiated_function_is_refused():
    def f(x, *args, **options):
        return x
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(f)
    assert "**kwargs" in str(info.value) and info.value.advice


def nested_keyword_only(x):
    def scaled(a, *rest, scale=2.0, shift):
        return np.sum(a * scale + shift) + len(rest)
    return scaled(x, 1, shift=0.5) + scaled(np.sin(x), scale=3.0, shift=x[0])


def test_nested_def_keyword_only_parameters_are_bound():
    check_all_modes(nested_keyword_only, np.array([0.3, -1.2, 0.8]))
