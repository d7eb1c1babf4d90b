"""The method and attribute spellings of the rules (their ``methods`` / ``attributes``
fields): each, applied through its rule, equals the ndarray method or attribute it stands
for."""

from __future__ import annotations

import numpy as np
import pytest

from srcgrad.rules import RULES
from srcgrad.rules.methods import attributes, methods

X = np.arange(1.0, 13.0).reshape(3, 4) / 7.0
Y = np.arange(1.0, 5.0) / 3.0

CALLS = [
    ("sum", ()), ("sum", (0,)), ("sum", (), {"axis": 1, "keepdims": True}),
    ("mean", (1,)), ("prod", ()), ("max", ()), ("max", (0,)), ("min", (), {"axis": 1}),
    ("var", (), {"ddof": 1}), ("std", (0,)), ("cumsum", (1,)),
    ("dot", (Y,)), ("trace", ()),
    ("reshape", (4, 3)), ("reshape", ((2, 6),)), ("reshape", (-1,)),
    ("transpose", ()), ("transpose", (1, 0)), ("transpose", ((1, 0),)),
    ("flatten", ()), ("ravel", ()), ("squeeze", ()), ("swapaxes", (0, 1)),
    ("repeat", (2,), {"axis": 1}), ("copy", ()), ("astype", (np.float32,)),
    ("clip", (0.3, 1.2)), ("round", (1,)), ("argmax", ()), ("argmin", (), {"axis": 0}),
    ("all", ()), ("any", (0,)),
    ("cumprod", ()), ("cumprod", (1,)),  # elem
]
# shape (issue 14)
CALLS += [("diagonal", (1,)), ("diagonal", (), {"axis1": 1, "axis2": 0}),
          ("take", ([0, 5, 5],)), ("take", ([2, 0],), {"axis": 1})]
CALLS += [("conj", ()), ("conjugate", ())]  # complex parts (issue 14)


def _call(entry):
    method, args, kwargs = (*entry, {}) if len(entry) == 2 else entry
    return method, args, kwargs


@pytest.mark.parametrize("entry", CALLS, ids=lambda e: f"{e[0]}{e[1:]}")
def test_method_through_its_rule_equals_the_ndarray_method(entry):
    method, args, kwargs = _call(entry)
    rule, convert = methods()[method]
    fargs, fkwargs = convert(X, *args, **kwargs)
    got = rule.apply(rule.bind(fargs, fkwargs))
    want = getattr(X, method)(*args, **kwargs)
    np.testing.assert_array_equal(got, want)
    assert np.result_type(got) == np.result_type(want)


def test_every_method_is_exercised_and_names_a_rule():
    assert {_call(e)[0] for e in CALLS} == set(methods())
    assert all(RULES[rule.name] is rule
               for rule, _ in (*methods().values(), *attributes().values()))


@pytest.mark.parametrize("attr", sorted(attributes()))
def test_attribute_through_its_rule_equals_the_ndarray_attribute(attr):
    rule, convert = attributes()[attr]
    for x in (X, np.ones((2, 3, 4)), np.float32(2.5) * np.ones(3, np.float32)):
        fargs, fkwargs = convert(x)
        got = rule.apply(rule.bind(fargs, fkwargs))
        np.testing.assert_array_equal(got, getattr(x, attr))
