"""``None`` arguments and ``is None`` tests: decided at compile time per version.

A ``None`` argument is its own kind in the abstract signature (srcgrad/compiler/
signature.py), so ``f(x)`` with ``w=None`` and ``f(x, w=array)`` get different compiled
versions, and in the ``None`` one the argument is the compile-time ``None``:
``if w is not None`` folds and its branch is dropped. A value of known type (float,
ndarray) is never ``None``; only the generic version, where the type is unknown, tests it
at run time (srcgrad/compiler/frontend/identity.py). Every derivative is checked against
central differences (tests/compiler/fd.py), in both modes and at second order.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([0.3, -1.2, 0.8])
W = np.array([2.0, 0.5, -1.5])


def weighted_loss(x, sample_weight=None):
    l = np.sin(x) * x
    if sample_weight is not None:
        l = l * sample_weight
    return np.sum(l)


def none_first(x, w=None):
    if w is None:
        return np.sum(np.exp(x * 0.5))
    return np.sum(np.exp(x * 0.5) * w)


def none_in_loop_and_branch(x, w=None, scale=None):
    s = 0.0
    for _ in range(2):
        if w is None:
            s = s + np.sum(np.tanh(x))
        else:
            s = s + np.sum(np.tanh(x) * w)
        x = x * 0.9
    if scale is not None and s > -100.0:
        s = s * scale
    return s


PROGRAMS = [weighted_loss, none_first, none_in_loop_and_branch]
# each program called with the weight left out, given as None, and given as an array and
# a float: four versions, each compared with finite differences of the plain function
CALLS = [{}, {"__w": None}, {"__w": W}, {"__w": 1.7}]


def _kwargs(f, call):
    name = "sample_weight" if f is weighted_loss else "w"
    return {name if k == "__w" else k: v for k, v in call.items()}


def _fd_hessian(f, x, kwargs):
    g = sg.grad(f)
    assert_close(g(x, **kwargs), numeric_gradient(f, [x], kwargs, 0))
    return np.stack([numeric_gradient(lambda v, k=k: g(v, **kwargs)[k], [x], {}, 0)
                     for k in range(x.size)])


@pytest.mark.parametrize("call", CALLS, ids=["left-out", "None", "array", "float"])
@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_optional_argument_none_or_value_differentiates_in_both_modes(f, call):
    kwargs = _kwargs(f, call)
    want = numeric_gradient(f, [X], kwargs, 0)
    assert_close(sg.grad(f)(X, **kwargs), want)
    v = np.array([1.0, -0.5, 2.0])
    value, tangent = sg.jvp(f)(X, v, **kwargs)
    assert_close(value, f(X, **kwargs), rtol=1e-12, atol=0, what="value")
    assert_close(tangent, want @ v)


@pytest.mark.parametrize("call", CALLS, ids=["left-out", "None", "array", "float"])
@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_optional_argument_none_or_value_second_order(f, call):
    kwargs = _kwargs(f, call)
    H_want = _fd_hessian(f, X, kwargs)
    assert_close(sg.hessian(f)(X, **kwargs), H_want, rtol=1e-5, atol=1e-5, what="hessian")
    assert_close(sg.jacobian(sg.grad(f))(X, **kwargs), H_want, rtol=1e-5, atol=1e-5,
                 what="jacobian(grad)")
    v = np.array([1.0, -0.5, 2.0])
    assert_close(sg.jvp(sg.grad(f))(X, v, **kwargs)[1], H_want @ v, rtol=1e-5, atol=1e-5,
                 what="jvp(grad)")
    assert_close(sg.vjp(sg.grad(f))(X, v, **kwargs), H_want.T @ v, rtol=1e-5, atol=1e-5,
                 what="vjp(grad)")


def scalar_weighted(x, w=None):
    y = x * np.sin(x)
    if w is not None:
        y = y * w
    return y


@pytest.mark.parametrize("w", [None, 0.5, 3.0])
def test_grad_of_grad_with_optional_argument(w):
    gg = sg.grad(sg.grad(scalar_weighted))
    g = sg.grad(scalar_weighted)
    x = 0.9
    assert_close(g(x, w=w), numeric_gradient(scalar_weighted, [x], {"w": w}, 0))
    assert_close(gg(x, w=w), numeric_gradient(lambda t: g(t, w=w), [x], {}, 0),
                 rtol=1e-5, atol=1e-5)


def test_none_and_array_calls_get_their_own_versions_in_any_order():
    g = sg.grad(weighted_loss)
    for kwargs in ({"sample_weight": W}, {}, {"sample_weight": None}, {"sample_weight": W},
                   {}):
        assert_close(g(X, **kwargs), numeric_gradient(weighted_loss, [X], kwargs, 0))
    text = sg.source(g, X)  # the None version: no multiplication by the weight (comments aside)
    code = "\n".join(s for s in text.split("\n")[1:] if not s.strip().startswith("#"))
    assert "sample_weight" not in code.replace("sample_weight):", "")


def test_generic_version_tests_none_at_run_time():
    # a list weight is not a kind the signature specialises on: the generic version runs,
    # where the type of `sample_weight` is unknown and `is not None` is a run-time test
    g = sg.grad(weighted_loss)
    weights = [2.0, 0.5, -1.5]
    assert_close(g(X, sample_weight=weights),
                 numeric_gradient(weighted_loss, [X], {"sample_weight": W}, 0))
    assert "is_none(sample_weight)" in sg.source(g)


def arithmetic_on_none(x, w=None):
    return np.sum(x * w)  # line 133


def identity_of_arrays(x, y):
    if x is y:  # line 137
        return np.sum(x)
    return np.sum(x * y)


def test_arithmetic_on_a_none_argument_is_refused_at_compile_time():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(arithmetic_on_none)(X)
    message = str(info.value)
    assert f"{__file__}:133" in message
    assert "None" in message and "is not None" in message


def test_identity_of_run_time_values_is_refused():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(identity_of_arrays)(X, W)
    message = str(info.value)
    assert f"{__file__}:137" in message
    assert "`is`" in message and "==" in message


# --- isinstance on a value of known type ---------------------------------------------------

def scalar_or_array(x):
    if isinstance(x, float):
        return x * np.sin(x)
    return np.sum(np.cos(x) * x)


def number_or_array_scale(x, scale):
    if isinstance(scale, (float, int)):
        return np.sum(np.tanh(x)) * scale
    return np.sum(np.tanh(x) * scale)


def isinstance_of_a_result(x):
    y = np.exp(x * 0.5)
    if isinstance(y, np.ndarray):
        return np.sum(y * y)
    return y * 3.0


@pytest.mark.parametrize("f, args", [
    (scalar_or_array, (0.8,)), (scalar_or_array, (X,)),
    (number_or_array_scale, (X, 2.5)), (number_or_array_scale, (X, 3)),
    (number_or_array_scale, (X, W)),
    (isinstance_of_a_result, (0.8,)), (isinstance_of_a_result, (X,)),
], ids=["float", "array", "float-scale", "int-scale", "array-scale", "result-float",
        "result-array"])
def test_isinstance_on_a_known_type_folds_per_version(f, args):
    x, rest = args[0], args[1:]
    want = numeric_gradient(f, list(args), {}, 0)
    g = sg.grad(f)
    assert_close(g(*args), want)
    if isinstance(x, float):
        assert_close(sg.jvp(f)(x, *rest, 1.0)[1], want)
        assert_close(sg.grad(sg.grad(f))(*args), numeric_gradient(g, list(args), {}, 0),
                     rtol=1e-5, atol=1e-5, what="grad(grad)")
    else:
        v = np.array([1.0, -0.5, 2.0])
        assert_close(sg.jvp(f)(x, *rest, v)[1], want @ v)  # the tangent goes last
        H = np.stack([numeric_gradient(lambda t, k=k: g(t, *rest)[k], [x], {}, 0)
                      for k in range(x.size)])
        assert_close(sg.hessian(f)(*args), H, rtol=1e-5, atol=1e-5, what="hessian")


def isinstance_of_unknown(x):
    if isinstance(x, np.ndarray):  # line 204
        return np.sum(x)
    return x


def test_isinstance_on_a_value_of_unknown_type_is_refused():
    with pytest.raises(sg.SrcGradError) as info:
        sg.source(sg.grad(isinstance_of_unknown))  # no example arguments: the generic version
    message = str(info.value)
    assert f"{__file__}:204" in message and "isinstance()" in message


def test_rendered_versions_for_none_and_array_kinds():
    from srcgrad.compiler.api import render

    for mode in ("reverse", "forward"):
        with_none = render(weighted_loss, types=["array[1]", "none"], mode=mode)
        with_array = render(weighted_loss, types=["array[1]", "array[1]"], mode=mode)
        body = "\n".join(s for s in with_none.split("):", 1)[1].split("\n")  # code only
                          if not s.strip().startswith("#"))
        assert "sample_weight" not in body and "is_none" not in body
        assert "* sample_weight" in with_array and "is_none" not in with_array


def mask_and_scale(x, mask=None, scale=None):
    y = np.tanh(x) * x
    if mask is None:
        mask = np.ones_like(x)
    if scale is None or scale > 1.0:  # short circuit: `None > 1.0` is never evaluated
        y = y * 2.0
    if mask is not None and np.sum(mask) > 0:
        y = y * mask
    return np.sum(y)


@pytest.mark.parametrize("kwargs", [{}, {"scale": 0.5}, {"scale": 2.0},
                                    {"mask": np.array([1.0, 0.0, 2.0]), "scale": None},
                                    {"mask": -np.ones(3), "scale": 3.0}],
                         ids=["defaults", "small-scale", "big-scale", "mask", "negative-mask"])
def test_none_tests_in_short_circuit_conditions(kwargs):
    want = numeric_gradient(mask_and_scale, [X], kwargs, 0)
    assert_close(sg.grad(mask_and_scale)(X, **kwargs), want)
    v = np.array([1.0, -0.5, 2.0])
    assert_close(sg.jvp(mask_and_scale)(X, v, **kwargs)[1], want @ v)
    H = _fd_hessian(mask_and_scale, X, kwargs)
    assert_close(sg.hessian(mask_and_scale)(X, **kwargs), H, rtol=1e-5, atol=1e-5)
