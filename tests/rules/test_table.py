"""The table as a whole: API.md's NumPy list is covered, twins are the same primitive,
and the derivatives srcgrad does not offer fail with a message saying so."""

from __future__ import annotations

import builtins
import importlib
import math
import pkgutil

import numpy as np
import pytest

import srcgrad.rules
from srcgrad.rules import NONDIFF, RULES, rule_for, rule_named

# API.md §1 "NumPy that must differentiate", and the zero-derivative ones it lists
API_FUNCTIONS = [
    np.add, np.subtract, np.multiply, np.divide, np.power, np.matmul, np.negative, np.exp,
    np.log, np.log1p, np.expm1, np.log2, np.log10, np.sqrt, np.square, np.abs, np.sin,
    np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.arctan2, np.hypot, np.sinh, np.cosh,
    np.tanh, np.maximum, np.minimum, np.clip, np.where, np.logaddexp, np.sum, np.mean,
    np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std, np.cumsum, np.dot, np.outer,
    np.inner, np.einsum, np.transpose, np.reshape, np.squeeze, np.expand_dims,
    np.broadcast_to, np.concatenate, np.stack, np.tile, np.repeat, np.flip, np.linalg.norm,
    np.linalg.inv, np.linalg.solve, np.linalg.det, np.trace, np.diag, np.ravel, np.copy,
    np.moveaxis, np.swapaxes,
]
# (np.full_like is not here: it is differentiable in its fill value, see rules/factories.py)
API_NONDIFF = [np.sign, np.floor, np.round, np.argmax, np.argmin, np.zeros_like,
               np.ones_like, np.empty_like, np.shape, np.ndim, np.size, len,
               np.greater, np.less, np.equal, np.not_equal, np.greater_equal, np.less_equal]


@pytest.mark.parametrize("fn", API_FUNCTIONS, ids=lambda f: f.__name__)
def test_api_function_has_a_differentiable_rule(fn):
    rule = rule_for(fn)
    assert rule is not None and rule.kind != NONDIFF and rule.vjp


@pytest.mark.parametrize("fn", API_NONDIFF, ids=lambda f: f.__name__)
def test_api_zero_derivative_function_is_marked_nondiff(fn):
    rule = rule_for(fn)
    assert rule is not None and rule.kind == NONDIFF and not rule.vjp and not rule.jvp


def _twins():
    for rule in RULES.values():
        for alias in rule.aliases:
            if alias is builtins.abs or getattr(alias, "__module__", None) == "math":
                yield rule, alias


@pytest.mark.parametrize("rule, twin", list(_twins()), ids=lambda v: getattr(v, "__name__", ""))
def test_math_twin_is_the_same_primitive(rule, twin):
    assert rule_for(twin) is rule
    args = {"arccosh": (1.7,), "arctanh": (0.3,), "arcsin": (0.3,), "arccos": (0.3,),
            "log": (1.7,), "log1p": (1.7,), "log2": (1.7,), "log10": (1.7,),
            "sqrt": (1.7,), "power": (1.7, 0.6), "fsum": ([0.3, 0.7, 1e-17],),
            "math_prod": ([0.3, 0.7, 1.3],), "dist": ([0.3, 0.7], [1.1, -0.2])}.get(rule.name, (0.3, 0.7)[: len(rule.inputs)])
    assert twin(*args) == pytest.approx(float(rule.impl(*args)), rel=1e-15)


def test_every_math_function_of_a_differentiable_numpy_rule_is_a_twin():
    expected = ["sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                "asinh", "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10",
                "sqrt", "pow", "hypot", "fabs", "floor", "ceil", "trunc"]
    missing = [n for n in expected if rule_for(getattr(math, n)) is None]
    assert not missing


def test_every_rules_module_opens_with_a_docstring():
    for info in pkgutil.iter_modules(srcgrad.rules.__path__):
        module = importlib.import_module(f"srcgrad.rules.{info.name}")
        assert module.__doc__ and len(module.__doc__.strip().splitlines()) >= 3, info.name


# --- derivatives srcgrad does not offer: a clear message, at derivative time ---------------
@pytest.mark.parametrize("ord, axis, ndim, message", [
    (3, None, 2, "3 is not a matrix norm order"),
    (0, (0, 1), 2, "0 is not a matrix norm order"),
    ("fro", None, 1, "'fro' is not a vector norm order"),
    ("nuc", 0, 2, "'nuc' is not a vector norm order"),
    (1, None, 3, "on a 3-d array"),
    (None, (0, 1, 2), 3, "axis must be"),
])
def test_norm_orders_numpy_does_not_define_are_refused_when_a_call_is_bound(
        ord, axis, ndim, message):
    rule = rule_named("norm")
    with pytest.raises(ValueError, match=message):
        rule.resolve({"ord": ord, "axis": axis, "keepdims": False}, {"x": ndim})


@pytest.mark.parametrize("ord, axis, ndim, resolved", [
    (None, None, 3, None), (3, None, 1, 0), ("nuc", None, 2, (0, 1)), (np.inf, (1,), 2, 1),
    (-2, [1, 0], 2, (1, 0)),
    (2, None, None, None),  # ndim unknown: decided at run time (norm_gradient)
])
def test_norm_axis_is_made_explicit_from_the_ndim_when_a_call_is_bound(
        ord, axis, ndim, resolved):
    params = rule_named("norm").resolve({"ord": ord, "axis": axis, "keepdims": False},
                                        {"x": ndim})
    assert params["axis"] == resolved and params["ord"] is ord


A, B = np.ones((2, 2)), np.ones((2, 2))


@pytest.mark.parametrize("args, subscripts", [
    ([A, [0, 1], B, [1, 2]], "ab,bc->ac"),
    ([A, [0, 1], B, [1, 2], [2, 0]], "ab,bc->ca"),
    ([A, [Ellipsis, 0, 1], B, [1, 2]], "...ab,bc->...ac"),
    ([A, [3, 1, 3]], "dbd->b"),
    ([A, [27, 1], B, [1, 0]], "Bb,ba->aB"),  # implicit output ordered by int, not by text
])
def test_einsum_sublist_form_binds_as_its_subscripts_form(args, subscripts):
    env = rule_named("einsum").bind(args, {})
    assert env["subscripts"] == subscripts
    assert all(a is b for a, b in zip(env["operands"], args[0::2]))


def test_einsum_sublist_form_with_a_non_static_sublist_is_refused():
    with pytest.raises(ValueError, match="sublist form"):
        rule_named("einsum").bind([A, [0, 1], B, "ij"], {})
