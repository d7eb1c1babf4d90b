"""A function whose result is ``None`` (on every path, or on some paths chosen at run time)
is refused at compile time with SrcGradError naming it and the line of the path that
returns ``None`` (srcgrad/compiler/frontend/returns.py). It used to give a zero gradient
in reverse mode and ``(None, None)`` or an object array in forward mode.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg


def no_return(x):
    y = x * 2.0  # noqa: F841


def bare_return(x):
    y = x * 2.0  # noqa: F841
    return


def return_none(x):
    return None


def if_without_else(x):
    if x > 0:
        return x * x


def return_from_for_only(x):
    for i in range(3):
        if x > i:
            return x * i


def return_from_while_only(x):
    while 0.0 < x < 10.0:
        x = x * 2.0
        if x > 5.0:
            return x


def none_in_nested_branch(x):
    if x > 0:
        if x > 1.0:
            return np.sin(x)
    else:
        return x * 3.0


def _line(f, text):
    """The file line of the first line of ``f`` that contains ``text``."""
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, line in enumerate(lines) if text in line)


EVERY_PATH = [(no_return, "def no_return"), (bare_return, "    return"),
              (return_none, "return None")]
SOME_PATHS = [(if_without_else, "if x > 0", "False"),
              (return_from_for_only, "for i in range", "loop"),
              (return_from_while_only, "while 0.0 < x", "loop"),
              (none_in_nested_branch, "if x > 1.0", "False")]
TRANSFORMS = {
    "grad": lambda f: sg.grad(f)(0.7),
    "value_and_grad": lambda f: sg.value_and_grad(f)(0.7),
    "vjp": lambda f: sg.vjp(f)(0.7, 1.0),
    "jvp": lambda f: sg.jvp(f)(0.7, 1.0),
    "hessian": lambda f: sg.hessian(f)(0.7),
    "grad_of_grad": lambda f: sg.grad(sg.grad(f))(0.7),
}


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("f, text", EVERY_PATH, ids=[f.__name__ for f, _ in EVERY_PATH])
def test_function_returning_none_is_refused(f, text, transform):
    with pytest.raises(sg.SrcGradError) as info:
        TRANSFORMS[transform](f)
    message = str(info.value)
    assert f"{__file__}:{_line(f, text)}:" in message
    assert f"`{f.__name__}` returns None on every path" in message
    assert "Return the value to differentiate" in message


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("f, text, when", SOME_PATHS, ids=[f.__name__ for f, *_ in SOME_PATHS])
def test_function_returning_none_on_some_paths_is_refused(f, text, when, transform):
    with pytest.raises(sg.SrcGradError) as info:
        TRANSFORMS[transform](f)
    message = str(info.value)
    assert f"{__file__}:{_line(f, text)}:" in message
    assert f"`{f.__name__}` returns None on some paths" in message
    assert ("this loop ends without returning" if when == "loop"
            else f"condition on this line is {when}") in message
    assert "Return a value on every path" in message


def if_else_returns(x):
    if x > 0:
        return x * x
    else:
        return np.sin(x)


def compile_time_branch_returns(x):
    if True:
        return x * np.cos(x)


def loop_return_then_final_return(x):
    for i in range(3):
        if x > i + 0.5:
            return x * i
    return -x * x


def while_true_left_only_by_return(x):
    while True:  # no path falls through: nothing after the loop is needed
        x = x * 1.3 + 0.2
        if x > 2.0:
            return np.sin(x) * x


@pytest.mark.parametrize("f", [if_else_returns, compile_time_branch_returns,
                               loop_return_then_final_return, while_true_left_only_by_return])
@pytest.mark.parametrize("x", [0.3, -0.6, 1.8])
def test_function_returning_a_value_on_every_path_still_differentiates(f, x):
    want = float(numeric_gradient(f, [x], {}, 0))
    assert_close(sg.grad(f)(x), want)
    assert_close(sg.jvp(f)(x, 1.0)[1], want)
    g = sg.grad(f)
    assert_close(sg.hessian(f)(x), numeric_gradient(g, [x], {}, 0), rtol=1e-5, atol=1e-5)
