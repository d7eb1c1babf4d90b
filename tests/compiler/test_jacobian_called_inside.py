"""Calling the result of sg.jacobian or sg.hessian inside a function being differentiated is
refused at the user's line with advice (frontend/derived.py): such a function carries the
handle of the jvp it is built on, and srcgrad used to inline that jvp's IR for it, failing
with an internal KeyError (an InternalCompilerError). Calling sg.jvp's and sg.vjp's results
inside still differentiates.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg

X = np.array([0.3, -0.7, 1.2])


def energy(y, k=2.0):
    return np.sum(np.sin(y) ** 2) * k


def field(y, k=2.0):
    return np.sin(y) * k


hess = sg.hessian(energy)
jac = sg.jacobian(field)
push = sg.jvp(field)


def calls_a_hessian(x):
    return np.sum(hess(x) @ x)


def calls_a_jacobian_with_a_default(x):
    return np.sum(jac(x, 3.0))


def calls_a_jvp_result(x):
    _, t = push(x, x ** 2, k=3.0)
    return np.sum(t * x)


@pytest.mark.parametrize("derive", ["grad", "jvp"])
@pytest.mark.parametrize("fn,called", [(calls_a_hessian, "hess("),
                                       (calls_a_jacobian_with_a_default, "jac(")])
def test_calling_a_jacobian_or_hessian_inside_is_refused_at_its_line(fn, called, derive):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn)(X) if derive == "grad" else sg.jvp(fn)(X, np.ones(3))
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, t in enumerate(lines) if called in t)
    message = str(info.value)
    assert f"{__file__}:{line}:" in message
    assert "sg.jacobian or sg.hessian" in message and "sg.jvp or sg.vjp inside" in message
    assert "internal" not in message


def test_a_jvp_result_called_inside_still_differentiates():
    sg.clear_cache()
    fn = calls_a_jvp_result
    assert_close(sg.grad(fn)(X), numeric_gradient(fn, (X,), None, 0))
    tangent = np.array([0.4, -1.1, 0.8])
    _, d = sg.jvp(fn)(X, tangent)
    assert_close(d, directional_derivative(fn, (X,), {0: tangent}))
