"""An opaque call (no rule, no source) whose result is dropped but which may have written a
differentiated value into an array the function reads later (``np.copyto(y, x)``,
``np.put``, ``np.putmask``, ``np.place``, ``np.add.at``) is refused in every mode
(srcgrad/compiler/ad/soundness.py). Reverse mode used to skip the call as dead and return a
zero gradient; forward mode already refused. A dropped call that touches nothing the result
reads stays harmless, and the supported spellings of the same writes differentiate.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

X = np.array([0.3, -0.7, 1.2])


def copyto_into_local(x):
    y = np.zeros(3)
    np.copyto(y, x)
    return np.sum(y ** 2)


def put_into_local(x):
    y = np.zeros(4)
    np.put(y, [0, 2, 3], x)
    return np.sum(y ** 2)


def putmask_into_local(x):
    y = np.zeros(3)
    np.putmask(y, [True, False, True], x)
    return np.sum(y ** 2)


def place_into_local(x):
    y = np.zeros(3)
    np.place(y, [True, False, True], x[:2])
    return np.sum(y ** 2)


def add_at_into_local(x):
    y = np.zeros(4)
    np.add.at(y, [0, 0, 1], x)
    return np.sum(y ** 2)


def add_at_inside_loop_in_branch(x):
    y = np.zeros(4)
    if x[0] > 0:
        for i in range(2):
            np.add.at(y, [i, i], x[:2])
    return np.sum(y ** 2)


WRITERS = [copyto_into_local, put_into_local, putmask_into_local, place_into_local,
           add_at_into_local, add_at_inside_loop_in_branch]
CALLEES = ["np.copyto", "np.put", "np.putmask", "np.place", "ufunc.at", "ufunc.at"]


def _line(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("mode", ["grad", "vjp", "jvp", "hessian"])
@pytest.mark.parametrize("fn,callee", list(zip(WRITERS, CALLEES, strict=True)),
                         ids=[f.__name__ for f in WRITERS])
def test_a_dropped_opaque_call_writing_a_differentiated_value_is_refused(fn, callee, mode):
    sg.clear_cache()
    calls = {"grad": lambda: sg.grad(fn)(X), "vjp": lambda: sg.vjp(fn)(X, 1.0),
             "jvp": lambda: sg.jvp(fn)(X, np.ones(3)), "hessian": lambda: sg.hessian(fn)(X)}
    with pytest.raises(sg.SrcGradError) as info:
        calls[mode]()
    message = str(info.value)
    assert callee.split(".")[-1] in message
    assert f"{__file__}:{_line(fn, callee.split('.')[-1] + '(')}" in message
    assert "sg.def" in message and "stop_gradient" in message


def dropped_call_on_constants_only(x):
    y = np.zeros(3)
    np.copyto(y, np.arange(3.0))
    return np.sum(y * x ** 2)


def the_same_write_as_an_index_assignment(x):
    y = np.zeros(4)
    y[[0, 2, 3]] = x
    return np.sum(y ** 2)


@pytest.mark.parametrize("fn", [dropped_call_on_constants_only,
                                the_same_write_as_an_index_assignment])
def test_writes_srcgrad_can_see_still_differentiate_in_every_mode(fn):
    sg.clear_cache()
    assert_close(sg.grad(fn)(X), numeric_gradient(fn, (X,), None, 0))
    tangent = np.array([0.4, -1.1, 0.8])
    _, d = sg.jvp(fn)(X, tangent)
    assert_close(d, directional_derivative(fn, (X,), {0: tangent}))
    assert_close(sg.hessian(fn)(X), numeric_hessian(sg.grad(fn), (X,)))
