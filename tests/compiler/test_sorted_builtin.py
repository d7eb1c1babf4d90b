"""The builtin ``sorted()`` in a differentiated function (compiler/frontend/sorted_builtin.py).

It used to be refused whenever an item was known only at run time. Sorting by keys known
while compiling (a dict's items by key, its keys) only moves the traced items; sorting
traced numbers without a key is ``np.sort`` of their stack. Checked against central finite
differences in reverse, forward and second order; traced keys are refused by name.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_tree_gradient

import srcgrad as sg


def dict_items_and_keys_sorted(params):
    total = 0.0
    for i, (name, value) in enumerate(sorted(params.items(), key=operator.itemgetter(0))):
        total = total + np.sum(np.sin(value)) * (i + 1.0)
    for name in sorted(params.keys(), reverse=True):
        total = total + np.sum(np.cos(params[name])) * len(name)
    return total


def test_sorting_a_dict_by_its_keys_differentiates_each_value():
    params = {"b": np.array([0.3, -0.4]), "a": np.array([[0.5, 1.2]]), "cc": np.array(0.7)}
    got = sg.grad(dict_items_and_keys_sorted)(params)
    want = numeric_tree_gradient(dict_items_and_keys_sorted, [params], 0)
    for k in params:
        assert_close(got[k], want[k])


def sorted_numbers(x):
    a, b, c = sorted([x[0], x[1] * 2.0, np.sin(x[2])])
    return a * 1.0 + b * 2.0 + c ** 2 * 3.0


def sorted_numbers_reversed(x):
    values = sorted([x[0] ** 2, x[1], x[2] * 0.5], reverse=True)
    return values[0] * 1.0 + values[1] * 2.0 + values[2] * 5.0


def sorted_by_compile_time_key(x):
    parts = sorted([("z", x[0]), ("a", x[1] ** 2), ("m", x[2])], key=lambda p: p[0])
    return parts[0][1] * 1.0 + parts[1][1] * 2.0 + parts[2][1] * 3.0


@pytest.mark.parametrize("fn", [sorted_numbers, sorted_numbers_reversed,
                                sorted_by_compile_time_key])
def test_sorted_of_traced_numbers_or_by_known_keys_differentiates_in_all_modes(fn):
    check_all_modes(fn, np.array([0.3, -0.9, 1.4]))


def sorted_by_traced_key(x):
    return sorted([x[0], x[1]], key=lambda v: -v)[0]  # <- error


def sorted_of_arrays(x):
    return sorted([x, x * 2.0])[0]  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("fn", [sorted_by_traced_key, sorted_of_arrays])
def test_sorted_by_run_time_comparisons_is_refused(fn, mode):
    assert_refused(fn, np.array([0.3, -0.9]), ["sorted()"], mode)
