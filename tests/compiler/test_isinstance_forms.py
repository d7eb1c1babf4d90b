"""``isinstance`` where the class is known while compiling (API.md, "Python that must
differentiate"; issue 14 item 3): on a number or array argument the abstract type
decides, on a container argument (a dict of parameters, a list or tuple, a namedtuple)
Python answers, and on a static int too. The branch not taken is never lowered (each
one here would fail if it were: it reads an attribute that does not exist). Checked
against central finite differences in reverse, forward and second order.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
Pair = namedtuple("Pair", "w b")


def array_argument(x):
    if isinstance(x, np.ndarray):
        return np.sum(np.sin(x) * x)
    return x.not_an_attribute


def float_test_on_an_array(x):
    if isinstance(x, float):
        return x.not_an_attribute
    return np.sum(x ** 3)


def numpy_floating_test_on_an_array(x):
    if isinstance(x, np.floating) or isinstance(x, (int, float)):
        return x.not_an_attribute
    return np.sum(np.exp(x))


def static_int_power(x, n):
    if isinstance(n, int):
        return np.sum(x ** n)
    return n.not_an_attribute


def dict_of_parameters(x, params):
    if isinstance(params, dict):
        return np.sum(np.tanh(x * params["w"]) + params["b"])
    return params.not_an_attribute


def list_or_tuple_of_arrays(x, parts):
    if isinstance(parts, (list, tuple)):
        return np.sum(x * parts[0] + parts[1] ** 2 * x)
    return parts.not_an_attribute


def namedtuple_is_a_tuple(x, pair):
    if isinstance(pair, tuple) and isinstance(pair, Pair):
        return np.sum(np.cos(x * pair.w) * pair.b)
    return pair.not_an_attribute


def filter_in_a_comprehension(x, parts):
    return sum(np.sum(p * x ** 2) for p in parts if isinstance(p, np.ndarray)) + np.sum(x)


CASES = [
    (array_argument, ()), (float_test_on_an_array, ()), (numpy_floating_test_on_an_array, ()),
    (static_int_power, (3,)),
    (dict_of_parameters, ({"w": np.array([0.5, 1.5, -1.0]), "b": 0.25},)),
    (list_or_tuple_of_arrays, ([np.array([1.0, 2.0, 3.0]), 0.5],)),
    (list_or_tuple_of_arrays, ((np.array([1.0, 2.0, 3.0]), np.array([0.2, 0.1, 0.3])),)),
    (namedtuple_is_a_tuple, (Pair(np.array([0.5, 1.5, -1.0]), 2.0),)),
    (filter_in_a_comprehension, ([np.array([1.0, 2.0, 3.0]), "label", 2.0],)),
]


@pytest.mark.parametrize("fn,rest", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                                 enumerate(CASES)])
def test_isinstance_known_while_compiling_takes_one_branch_in_every_mode(fn, rest):
    sg.clear_cache()
    args = (X, *rest)
    want = numeric_gradient(fn, list(args), {}, 0)
    assert np.any(want != 0)
    assert_close(sg.grad(fn)(*args), want, rtol=1e-5)
    u = np.linspace(-1.0, 1.0, X.size).reshape(X.shape)
    _, d = sg.jvp(fn)(*args, u)
    assert_close(d, directional_derivative(fn, list(args), {0: u}), rtol=1e-5)
    grad = sg.grad(fn)
    assert_close(sg.hessian(fn)(*args), numeric_hessian(grad, list(args)), rtol=1e-4,
                 atol=1e-5)


def isinstance_of_a_list_built_at_run_time(x):
    rows = [r * 2.0 for r in x]
    if isinstance(rows, list):  # <- error
        return np.sum(np.stack(rows))
    return np.sum(x)


def isinstance_in_the_generic_version(x):
    if isinstance(x, np.ndarray):  # <- error
        return np.sum(x)
    return x


def test_isinstance_srcgrad_cannot_answer_while_compiling_is_refused_at_its_line():
    import inspect

    for fn, args in ((isinstance_of_a_list_built_at_run_time, (X,)),
                     (isinstance_in_the_generic_version, ())):
        sg.clear_cache()
        with pytest.raises(sg.SrcGradError) as info:
            sg.source(sg.grad(fn), *args)  # no example arguments: the generic version
        text = str(info.value)
        lines, first = inspect.getsourcelines(fn)
        line = first + next(i for i, t in enumerate(lines) if "# <- error" in t)
        assert f"test_isinstance_forms.py:{line}:" in text, text
        assert "isinstance" in text and info.value.advice, text
