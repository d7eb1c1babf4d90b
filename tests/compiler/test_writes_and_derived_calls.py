"""Writes, scalars, the cache key and derived functions called inside differentiated code.

Every derivative is checked against central finite differences (``fd.py``), in reverse and
forward mode, and at second order where that makes sense; refusals are checked for the
construct, the user's file:line and advice (``test_errors.assert_good_message``).
"""

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

X3 = np.array([0.7, -1.3, 2.1])


def two_args(x, y):
    return x * np.sin(y) + y * y


# --- the cache key includes the form of the result ---------------------------------------------

@pytest.mark.parametrize("first", ["bare", "tuple"])
def test_wrt_int_and_one_tuple_keep_their_own_result_forms(first):
    sg.clear_cache()
    bare, one_tuple = sg.grad(two_args, wrt=1), sg.grad(two_args, wrt=(1,))
    calls = [bare, one_tuple] if first == "bare" else [one_tuple, bare]
    results = {id(c): c(0.4, 1.1) for c in calls}
    want = numeric_gradient(two_args, [0.4, 1.1], {}, 1)
    assert not isinstance(results[id(bare)], tuple)
    assert_close(results[id(bare)], want)
    assert isinstance(results[id(one_tuple)], tuple) and len(results[id(one_tuple)]) == 1
    assert_close(results[id(one_tuple)][0], want)


@pytest.mark.parametrize("transform", [sg.vjp, sg.value_and_grad])
def test_wrt_int_and_one_tuple_keep_their_forms_in_vjp_and_value_and_grad(transform):
    sg.clear_cache()
    bare, one_tuple = transform(two_args, wrt=1), transform(two_args, wrt=(1,))
    extra = (1.0,) if transform is sg.vjp else ()
    got_tuple = one_tuple(0.4, 1.1, *extra)
    got_bare = bare(0.4, 1.1, *extra)
    if transform is sg.value_and_grad:
        got_tuple, got_bare = got_tuple[1], got_bare[1]
    assert isinstance(got_tuple, tuple) and not isinstance(got_bare, tuple)
    assert_close(got_bare, got_tuple[0])


def test_wrt_by_name_and_by_position_give_the_same_form():
    sg.clear_cache()
    by_name, by_position = sg.grad(two_args, wrt=("y",)), sg.grad(two_args, wrt=1)
    assert isinstance(by_name(0.4, 1.1), tuple)
    assert not isinstance(by_position(0.4, 1.1), tuple)
    assert not isinstance(sg.grad(two_args, wrt="y")(0.4, 1.1), tuple)
