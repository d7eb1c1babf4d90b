"""A negative zero the user wrote stays negative: ``0.0 == -0.0`` and they hash alike, so
constants were shared by value (the builder's constants, CSE) and
``np.where(x > 0, 2.0 * x, -0.0)`` next to ``np.where(x > 0, x, 0.0)`` gave +0.0."""

import numpy as np
import pytest

import srcgrad as sg


def two_wheres(x):
    a = np.where(x > 0, x, 0.0)
    b = np.where(x > 0, 2.0 * x, -0.0)
    return np.sum(np.arctan(1.0 / a)) + np.sum(b), b


@pytest.mark.parametrize("optimize", [True, False])
def test_the_users_negative_zero_is_kept(optimize):
    x = np.array([-1.0, 2.0, -3.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        want = two_wheres(x)[1]
        got = sg.jvp(two_wheres, optimize=optimize)(x, np.ones(3))[0][1]
    assert np.array_equal(np.signbit(got), np.signbit(want)), (got, want)
    text = sg.source(sg.value_and_grad(lambda x: two_wheres(x)[0], optimize=optimize), x)
    assert "-0.0" in text, text


def copysign_of_a_static(x, sign):
    return np.sum(x) * np.copysign(1.0, sign)


def test_compiled_versions_tell_the_zeros_apart():
    x = np.array([1.0, 2.0])
    g = sg.grad(copysign_of_a_static)
    assert g(x, 0.0).tolist() == [1.0, 1.0]
    assert g(x, -0.0).tolist() == [-1.0, -1.0]
    assert g(x, 0.0).tolist() == [1.0, 1.0]
