"""Issue 14's functions are in the table: each NumPy function and ``math`` twin of API.md
(v3) has a differentiable rule, twins are the same primitive, and the runtime has the
PyTorch spellings. (``test_rules.py`` checks every rule's derivatives on its samples.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import NONDIFF, rule_for

NUMPY = [np.fabs, np.deg2rad, np.radians, np.rad2deg, np.degrees, np.logaddexp2, np.fmax,
         np.fmin, np.sinc, np.nan_to_num, np.cbrt, np.cumprod, np.nansum, np.nanmean,
         np.average, np.median]
MATH = [math.erf, math.erfc, math.lgamma, math.fsum, math.prod, math.hypot, math.dist,
        math.radians, math.degrees]
TWINS = [(np.radians, np.deg2rad), (np.degrees, np.rad2deg), (math.radians, np.deg2rad),
         (math.degrees, np.rad2deg)]


@pytest.mark.parametrize("fn", NUMPY + MATH, ids=lambda f: f.__name__)
def test_issue14_function_has_a_differentiable_rule(fn):
    rule = rule_for(fn)
    assert rule is not None and rule.kind != NONDIFF and rule.vjp


@pytest.mark.parametrize("twin, fn", TWINS, ids=lambda f: f.__name__)
def test_angle_conversion_spellings_are_one_primitive(twin, fn):
    assert rule_for(twin) is rule_for(fn)


def test_math_cbrt_is_the_cbrt_primitive_where_python_has_it():
    if not hasattr(math, "cbrt"):
        pytest.skip("math.cbrt is Python 3.11+")
    assert rule_for(math.cbrt) is rule_for(np.cbrt)


def test_math_hypot_takes_any_number_of_coordinates_and_np_hypot_stays_binary():
    assert rule_for(math.hypot).variadic == "coords"
    assert rule_for(np.hypot).inputs == ("x", "y")


METHODS = ["sinc", "deg2rad", "rad2deg", "erf", "erfc", "lgamma", "digamma", "polygamma",
           "logaddexp2", "fmax", "fmin", "nan_to_num", "cumprod", "nansum", "nanmean",
           "median"]


@pytest.mark.parametrize("name", METHODS)
def test_runtime_has_the_pytorch_spelling(name):
    assert callable(getattr(sg.Tensor, name)) and callable(getattr(sg, name))
