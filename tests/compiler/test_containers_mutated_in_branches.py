"""A list or dict the function built and mutates (``acc.append(v)``, ``acc[0] = v``,
``d["k"] = v``) on the paths of an ``if`` on a run-time condition: each branch mutates its
own copy and the container is merged item by item after the ``if``
(srcgrad/compiler/frontend/branches.py, ``branch_env``). The branches used to share one
Python container, so the else branch saw the then branch's item: an internal IR error
('stack reads %N before its definition') in every mode. Lists of different lengths on the
two paths are refused at the user's line.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

POINTS = [np.array([0.3, -0.7, 1.2]), np.array([-0.4, 0.9, -1.3])]


def append_on_both_paths(x):
    acc = [x[0]]
    if x[1] > 0:
        acc.append(x[1] ** 2)
    else:
        acc.append(x[2] * 3.0)
    acc.append(x[0] * x[2])
    return np.sum(np.array(acc) ** 2)


def append_in_a_branch_inside_an_unrolled_loop(x):
    acc = []
    for i in range(3):
        if x[i] > 0:
            acc.append(np.sin(x[i]))
        else:
            acc.append(np.cos(x[i]) * x[i])
    return np.sum(np.stack(acc) ** 2)


def append_then_return_early(x):
    acc = [x[2]]
    if x[0] > 0:
        acc.append(x[0] ** 3)
        return np.sum(np.array(acc)) * x[1]
    acc.append(x[1])
    return np.prod(np.array(acc))


def nested_lists_and_an_alias(x):
    rows = [[x[0]], [x[1]]]
    alias = rows
    if x[2] > 0:
        rows[0].append(x[2])
        rows[1].append(x[0] * x[2])
    else:
        rows[0].append(1.0)
        rows[1].append(x[1] ** 2)
    rows.append([x[2], x[2] ** 2])
    return np.sum(np.array(alias) ** 2)


def item_written_on_one_path(x):
    acc = [x[0], x[1]]
    if x[2] > 0:
        acc[0] = x[2] ** 2
    return np.sum(np.array(acc) ** 2)


def dict_key_written_on_both_paths(x):
    d = {"a": x[0]}
    if x[1] > 0:
        d["b"] = x[1] ** 2
    else:
        d["b"] = x[2] * 3.0
    return d["a"] * d["b"]


def dict_item_updated_in_a_branch_inside_a_loop(x):
    d = {"h": x * 1.0, "last": [x[2]]}
    for i in range(2):
        if x[i] > 0:
            d["h"] = np.tanh(d["h"] * 2.0)
            d["last"][0] = x[i]
        else:
            d["last"][0] = d["last"][0] * x[i] ** 2
    return np.sum(d["h"] ** 2) + d["last"][0] ** 3


CASES = [dict_key_written_on_both_paths, dict_item_updated_in_a_branch_inside_a_loop,
         append_on_both_paths, append_in_a_branch_inside_an_unrolled_loop,
         append_then_return_early, nested_lists_and_an_alias, item_written_on_one_path]


@pytest.mark.parametrize("x", POINTS, ids=["first", "second"])
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_a_container_mutated_in_a_run_time_branch_differentiates(fn, x):
    sg.clear_cache()
    assert_close(sg.grad(fn)(x), numeric_gradient(fn, (x,), None, 0))
    tangent = np.array([0.4, -1.1, 0.8])
    value, d = sg.jvp(fn)(x, tangent)
    assert_close(value, fn(x), what="value")
    assert_close(d, directional_derivative(fn, (x,), {0: tangent}))
    assert_close(sg.hessian(fn)(x), numeric_hessian(sg.grad(fn), (x,)))


def appended_on_one_path_only(x):
    acc = []
    if x[0] > 0:
        acc.append(x[0])
    return np.sum(np.array(acc + [x[1]]))


@pytest.mark.parametrize("derive", [sg.grad, sg.jvp])
def test_a_list_of_different_lengths_on_the_two_paths_is_refused(derive):
    sg.clear_cache()
    args = (POINTS[0],) if derive is sg.grad else (POINTS[0], np.ones(3))
    with pytest.raises(sg.SrcGradError) as info:
        derive(appended_on_one_path_only)(*args)
    lines, start = inspect.getsourcelines(appended_on_one_path_only)
    line = start + next(i for i, t in enumerate(lines) if "if x[0] > 0" in t)
    message = str(info.value)
    assert f"{__file__}:{line}:" in message
    assert "`acc`" in message and "same tuple or list shape" in message


def test_a_list_the_caller_passed_is_not_copied_by_a_branch():
    def f(x, extra):
        if x[0] > 0:
            extra.append(x[0])
        return x[1] * 2.0

    sg.clear_cache()
    with pytest.raises(sg.SrcGradError, match="list the function was given"):
        sg.grad(f)(POINTS[0], [1.0])
