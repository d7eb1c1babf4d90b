"""A function given as an argument is a compile-time value (compiler/signature.py).

``def f(a, _r=np.sum): return _r(...)`` (autograd's test of plain NumPy reductions) used
to make ``_r`` an opaque run-time value, so calling it was refused with a misleading
"Python bool is needed". Now the version specialises on the function (guarded by
identity): its call lowers to the function's rule, and passing another function compiles
another version.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

BASE = np.array([0.6, 1.2, 0.9, 1.7, 0.8])


def reduce_with_default(a, _r=np.sum):
    return _r(np.exp(a) * BASE)


def reduce_with_max(a, _r=np.max):
    return _r(np.exp(a) * BASE * np.array([1.0, 0.5, 2.0, 0.25, 1.5]))


def reduce_with_prod(a, _r=np.prod):
    return _r(np.exp(a) * BASE)


@pytest.mark.parametrize("fn", [reduce_with_default, reduce_with_max, reduce_with_prod])
def test_reduction_passed_as_defaulted_argument_differentiates_in_all_modes(fn):
    check_all_modes(fn, 0.7)


def apply(x, act):
    return np.sum(act(x) * BASE[:3])


@pytest.mark.parametrize("act", [np.tanh, np.sin, np.exp])
def test_function_passed_explicitly_selects_its_own_version(act):
    x = np.array([0.3, -0.4, 1.1])
    g = sg.grad(apply)
    want = numeric_gradient(apply, [x, act], {}, 0)
    assert_close(g(x, act), want, rtol=1e-5, atol=1e-6)
    value, tangent = sg.jvp(apply)(x, act, np.ones(3))
    assert_close(tangent, float(np.sum(want)), rtol=1e-5, atol=1e-6)


def test_the_same_derived_function_follows_a_changed_function_argument():
    g = sg.grad(reduce_with_default)
    first = g(0.7)
    second = g(0.7, _r=np.prod)
    assert_close(first, numeric_gradient(reduce_with_default, [0.7], {}, 0))
    assert_close(second, numeric_gradient(reduce_with_default, [0.7], {"_r": np.prod}, 0))
    assert not np.isclose(first, second)


def test_differentiating_with_respect_to_a_function_argument_is_refused():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(apply, wrt=1)(np.ones(3), np.tanh)
    assert "`act`" in str(info.value) and info.value.advice
